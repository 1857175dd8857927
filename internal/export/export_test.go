package export

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/matrix"
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

// TestUnnameableTools: a tool whose name holds a glob character, a
// parenthesis or a space is left unwritten and noted by every harness, so
// that no rule can name another tool (pay.* would cover pay.send) or none.
func TestUnnameableTools(t *testing.T) {
	mx := handMatrix(
		[5]string{"a", "verb", "pay.*", "read", "allow"},
		[5]string{"a", "verb", "pay.send", "write", "ask"},
		[5]string{"a", "verb", "run(x)", "read", "deny"},
		[5]string{"a", "verb", "drop table", "write", "deny"},
	)
	for _, h := range Harnesses {
		f, err := Export(mx, "role:x", h, "hcp")
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"pay.*", "pay_*", "run(", "drop"} {
			if strings.Contains(string(f.Data), bad) {
				t.Errorf("%s: file holds %q:\n%s", h, bad, f.Data)
			}
		}
		var unwritten []string
		for _, n := range f.Notes {
			if n.Unwritten && strings.Contains(n.Text, "(MCP tool names)") {
				unwritten = append(unwritten, n.Tool)
			}
		}
		if want := []string{"pay.*", "run(x)", "drop table"}; !reflect.DeepEqual(unwritten, want) {
			t.Errorf("%s: unwritten %q, want %q", h, unwritten, want)
		}
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

// TestDeliveryNotes checks when the notes of what comparing with each
// harness found are given, and when not: only for the names and values
// that the harness may read otherwise.
func TestDeliveryNotes(t *testing.T) {
	plain := handMatrix([5]string{"a", "verb", "list_items", "read", "allow"}, [5]string{"a", "verb", "send", "write", "deny"})
	dotted := handMatrix([5]string{"a", "verb", "items.list", "read", "allow"})
	dashed := handMatrix([5]string{"a", "verb", "list-items", "write", "ask"})
	for _, tc := range []struct {
		name    string
		mx      *matrix.Matrix
		harness Harness
		server  string
		want    string // a note holding this, or "" for none
	}{
		// Claude Code's and OpenCode's names are the registered ones
		// (names.go): nothing left to note about them.
		{"claude plain names", plain, ClaudeCode, "hcp", ""},
		{"claude dash", dashed, ClaudeCode, "my-hub", ""},
		{"claude dot", dotted, ClaudeCode, "hcp", ""},
		{"opencode plain", plain, OpenCode, "hcp", ""},
		{"opencode dot", dotted, OpenCode, "hcp", ""},
		{"opencode dashed tool", dashed, OpenCode, "hcp", ""},
		{"opencode dashed server", plain, OpenCode, "my-hub", ""},
		{"codex auto", plain, Codex, "hcp", "so these allowed tools may still ask: list_items"},
		{"codex no auto", dashed, Codex, "hcp", ""},
		{"gemini server", plain, Gemini, "hcp", ""},
		{"gemini server with _", plain, Gemini, "my_hub", `the server name "my_hub" holds _`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Export(tc.mx, "role:x", tc.harness, tc.server)
			if err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(noteStrings(f.Notes), "\n")
			if tc.want == "" && notes != "" || tc.want != "" && !strings.Contains(notes, tc.want) {
				t.Errorf("notes %q; want one holding %q", notes, tc.want)
			}
		})
	}
}
