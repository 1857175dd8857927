package export

import (
	"reflect"
	"testing"

	"github.com/hcp-rego/hcp-rego/matrix"
)

// handMatrix builds a one-subject matrix ("role:x") from rows of pack,
// kind, key, operation and disposition.
func handMatrix(rows ...[5]string) *matrix.Matrix {
	mx := &matrix.Matrix{Mode: matrix.ModeAsk, Subjects: []string{"role:x"}}
	for _, r := range rows {
		mx.Rows = append(mx.Rows, &matrix.Row{
			RowID:     matrix.RowID{PackID: r[0], Kind: r[1], Key: r[2]},
			Operation: r[3],
			Cells:     map[string]matrix.Disposition{"role:x": matrix.Disposition(r[4])},
		})
	}
	return mx
}

func TestExportErrors(t *testing.T) {
	ok := handMatrix([5]string{"a", "verb", "t", "read", "allow"})
	for _, tc := range []struct {
		name    string
		mx      *matrix.Matrix
		subject string
		harness Harness
		server  string
		want    string
	}{
		{"unknown subject", ok, "role:y", ClaudeCode, "hcp", `subject "role:y" is not a column of the matrix`},
		{"bad harness", ok, "role:x", "vscode", "hcp", `harness "vscode": want claude-code, codex, opencode, gemini or cursor`},
		{"empty server", ok, "role:x", ClaudeCode, "", `server name "": want letters, digits, - and _ (not __), starting with a letter or digit`},
		{"colon server", ok, "role:x", Cursor, "a:b", `server name "a:b": want letters, digits, - and _ (not __), starting with a letter or digit`},
		{"double underscore", ok, "role:x", ClaudeCode, "a__b", `server name "a__b": want letters, digits, - and _ (not __), starting with a letter or digit`},
		{"shared tool", handMatrix([5]string{"a", "verb", "connect", "write", "deny"}, [5]string{"b", "verb", "connect", "write", "allow"}),
			"role:x", Gemini, "hcp", `tool "connect" is a command of packs "a" and "b": one MCP server cannot carry both; export them separately`},
		{"opencode collision", handMatrix([5]string{"a", "verb", "x.y", "read", "deny"}, [5]string{"a", "verb", "x-y", "read", "allow"}),
			"role:x", OpenCode, "hcp", `opencode: tools "x.y" and "x-y" both become action "hcp_x_y"`},
		{"bad disposition", handMatrix([5]string{"a", "verb", "t", "read", "maybe"}), "role:x", Cursor, "hcp", `tool "t": disposition "maybe": want allow, ask or deny`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Export(tc.mx, tc.subject, tc.harness, tc.server)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %s", err, tc.want)
			}
			if f != nil {
				t.Fatalf("file written on error: %s", f.Data)
			}
		})
	}
}

// TestClaudeParentheses: an mcp__ rule with parentheses is skipped by
// Claude Code, so the tool is left unwritten and noted.
func TestClaudeParentheses(t *testing.T) {
	mx := handMatrix([5]string{"a", "verb", "run(x)", "read", "deny"}, [5]string{"a", "verb", "ok", "read", "deny"})
	f, err := Export(mx, "role:x", ClaudeCode, "hcp")
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"permissions\": {\n    \"allow\": [],\n    \"ask\": [],\n    \"deny\": [\n      \"mcp__hcp__ok\"\n    ]\n  }\n}\n"
	if string(f.Data) != want {
		t.Errorf("file = %q, want %q", f.Data, want)
	}
	notes := noteStrings(f.Notes)
	wantNotes := []string{"note: claude-code: run(x): deny cannot be expressed: Claude Code skips an mcp__ rule that contains parentheses; left unwritten"}
	if !reflect.DeepEqual(notes, wantNotes) {
		t.Errorf("notes = %q, want %q", notes, wantNotes)
	}
}

// TestTriggersNoted: triggers are not tools; the file is the same without
// them and a note names them.
func TestTriggersNoted(t *testing.T) {
	mx := handMatrix([5]string{"a", "verb", "t", "write", "allow"}, [5]string{"a", "stimulus", "s", "read", "allow"}, [5]string{"b", "stimulus", "new\nline", "read", "deny"})
	f, err := Export(mx, "role:x", Codex, "hcp")
	if err != nil {
		t.Fatal(err)
	}
	wantNotes := []string{
		`note: codex: t: allow of a write tool cannot be expressed (no approval_mode means "allow a write without asking"); enabled with no approval_mode, so default_tools_approval_mode decides`,
		`note: codex: triggers are not MCP tools and are not exported: a/s, "b/new\nline"`,
	}
	if notes := noteStrings(f.Notes); !reflect.DeepEqual(notes, wantNotes) {
		t.Errorf("notes:\n%q\nwant:\n%q", notes, wantNotes)
	}
	want := "[mcp_servers]\n[mcp_servers.hcp]\nenabled_tools = [\"t\"]\ndisabled_tools = []\n"
	if string(f.Data) != want {
		t.Errorf("file = %q, want %q", f.Data, want)
	}
}

// TestNoTools: a subject's file with no tool is well formed and empty.
func TestNoTools(t *testing.T) {
	mx := handMatrix([5]string{"a", "stimulus", "s", "read", "allow"})
	want := map[Harness]string{
		ClaudeCode: "{\n  \"permissions\": {\n    \"allow\": [],\n    \"ask\": [],\n    \"deny\": []\n  }\n}\n",
		Codex:      "[mcp_servers]\n[mcp_servers.hcp]\nenabled_tools = []\ndisabled_tools = []\n",
		OpenCode:   "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"permissions\": []\n}\n",
		Gemini:     "",
		Cursor:     "{\n  \"mcpAllowlist\": []\n}\n",
	}
	for _, h := range Harnesses {
		f, err := Export(mx, "role:x", h, "hcp")
		if err != nil {
			t.Fatal(err)
		}
		if string(f.Data) != want[h] {
			t.Errorf("%s: file = %q, want %q", h, f.Data, want[h])
		}
	}
}

func TestParseHarness(t *testing.T) {
	for _, h := range Harnesses {
		if got, err := ParseHarness(string(h)); got != h || err != nil {
			t.Errorf("ParseHarness(%q) = %q, %v", h, got, err)
		}
	}
	if _, err := ParseHarness("Claude-Code"); err == nil {
		t.Error("ParseHarness(Claude-Code) succeeded, want an error")
	}
}
