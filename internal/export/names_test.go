package export

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// The naming rule as Claude Code 2.1 and OpenCode 1.18 write it in their
// own code, a server's and a tool's name each passed through
// name.replace(/[^a-zA-Z0-9_-]/g, "_"), then joined: Claude Code as
// "mcp__" + server + "__" + tool, OpenCode as server + "_" + tool. Claude
// Code and OpenCode cannot be run offline, so this test holds the names
// export writes to that rule, kept here apart from names.go.
var harnessCodeRule = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

func claudeCodeName(server, tool string) string {
	return "mcp__" + harnessCodeRule.ReplaceAllString(server, "_") + "__" + harnessCodeRule.ReplaceAllString(tool, "_")
}

func openCodeName(server, tool string) string {
	return harnessCodeRule.ReplaceAllString(server, "_") + "_" + harnessCodeRule.ReplaceAllString(tool, "_")
}

// TestRegisteredNames pins the names, and which tools are left unwritten
// because their names collide or are too long, for Claude Code and
// OpenCode.
func TestRegisteredNames(t *testing.T) {
	long64 := strings.Repeat("x", MaxRegisteredName-len("mcp__hcp__"))
	long65 := long64 + "x"
	for _, tc := range []struct {
		name      string
		harness   Harness
		server    string
		tools     []string // each an allowed read
		written   []string
		unwritten []string
	}{
		{"claude dots", ClaudeCode, "hub", []string{"documents.search", "case-gateway.dispatch"},
			[]string{"mcp__hub__documents_search", "mcp__hub__case-gateway_dispatch"}, nil},
		{"claude dashed server", ClaudeCode, "my-hub", []string{"a_b"}, []string{"mcp__my-hub__a_b"}, nil},
		{"claude collision", ClaudeCode, "hcp", []string{"x.y", "keep", "x_y"}, []string{"mcp__hcp__keep"}, []string{"x.y", "x_y"}},
		{"claude dash is no collision", ClaudeCode, "hcp", []string{"x.y", "x-y"}, []string{"mcp__hcp__x_y", "mcp__hcp__x-y"}, nil},
		{"claude 64 characters", ClaudeCode, "hcp", []string{long64}, []string{"mcp__hcp__" + long64}, nil},
		{"claude 65 characters", ClaudeCode, "hcp", []string{long65, "short"}, []string{"mcp__hcp__short"}, []string{long65}},
		{"opencode dots and dashes", OpenCode, "hub", []string{"documents.search", "case-gateway.dispatch"},
			[]string{"hub_documents_search", "hub_case-gateway_dispatch"}, nil},
		{"opencode dashed server", OpenCode, "my-hub", []string{"list-items"}, []string{"my-hub_list-items"}, nil},
		{"opencode collision", OpenCode, "hcp", []string{"x.y", "x_y", "keep"}, []string{"hcp_keep"}, []string{"x.y", "x_y"}},
		{"opencode dash is no collision", OpenCode, "hcp", []string{"x.y", "x-y"}, []string{"hcp_x_y", "hcp_x-y"}, nil},
		{"opencode 64 characters", OpenCode, "hcp", []string{strings.Repeat("x", 60)}, []string{"hcp_" + strings.Repeat("x", 60)}, nil},
		{"opencode 65 characters", OpenCode, "hcp", []string{strings.Repeat("x", 61)}, nil, []string{strings.Repeat("x", 61)}},
		// A tool left out for its name is registered all the same: a tool
		// that gets its name is not written either.
		{"claude collision with a name left out", ClaudeCode, "hcp", []string{"x y", "x_y", "keep"}, []string{"mcp__hcp__keep"}, []string{"x y", "x_y"}},
		{"opencode collision with a name left out", OpenCode, "hcp", []string{"pay*", "pay_", "keep"}, []string{"hcp_keep"}, []string{"pay*", "pay_"}},
		{"gemini collision with a name left out", Gemini, "hcp", []string{"x y", "x_y", "keep"}, []string{"keep"}, []string{"x y", "x_y"}},
		{"gemini keeps . and -", Gemini, "hub", []string{"documents.search", "x-y", "x_y"}, []string{"documents.search", "x-y", "x_y"}, nil},
		{"gemini 63 characters", Gemini, "hcp", []string{strings.Repeat("x", 55)}, []string{strings.Repeat("x", 55)}, nil},
		{"gemini 64 characters", Gemini, "hcp", []string{strings.Repeat("x", 56), "short"}, []string{"short"}, []string{strings.Repeat("x", 56)}},
		{"gemini shortened to another tool's name", Gemini, "hcp",
			[]string{strings.Repeat("a", 30) + strings.Repeat("b", 30), strings.Repeat("a", 22) + "..." + strings.Repeat("b", 30), "keep"},
			[]string{"keep"}, []string{strings.Repeat("a", 30) + strings.Repeat("b", 30), strings.Repeat("a", 22) + "..." + strings.Repeat("b", 30)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rows [][5]string
			for _, tool := range tc.tools {
				rows = append(rows, [5]string{"a", "verb", tool, "read", "allow"})
			}
			f, err := Export(handMatrix(rows...), "role:x", tc.harness, tc.server)
			if err != nil {
				t.Fatal(err)
			}
			if got := writtenNames(t, tc.harness, f.Data); !reflect.DeepEqual(got, tc.written) {
				t.Errorf("written %q, want %q\n%s", got, tc.written, f.Data)
			}
			var unwritten []string
			for _, n := range f.Notes {
				if !n.Unwritten || !strings.Contains(n.Text, "allow cannot be expressed: ") {
					t.Errorf("note %q", n)
				}
				unwritten = append(unwritten, n.Tool)
			}
			if !reflect.DeepEqual(unwritten, tc.unwritten) {
				t.Errorf("unwritten %q, want %q", unwritten, tc.unwritten)
			}
		})
	}
}

// TestRegisteredNoteText pins the notes on a collision and a long name.
func TestRegisteredNoteText(t *testing.T) {
	mx := handMatrix([5]string{"a", "verb", "x.y", "read", "deny"}, [5]string{"a", "verb", "x_y", "write", "ask"})
	f, err := Export(mx, "role:x", OpenCode, "hcp")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"note: opencode: x.y: deny cannot be expressed: OpenCode registers it as hcp_x_y, the name of another tool of the server too; " +
			"left unwritten, so OpenCode's default policy decides for it (it allows everything unless another rule of the user's matches)",
		"note: opencode: x_y: ask cannot be expressed: OpenCode registers it as hcp_x_y, the name of another tool of the server too; " +
			"left unwritten, so OpenCode's default policy decides for it (it allows everything unless another rule of the user's matches)",
	}
	if got := noteStrings(f.Notes); !reflect.DeepEqual(got, want) {
		t.Errorf("notes:\n%q\nwant:\n%q", got, want)
	}
	long := strings.Repeat("y", 60)
	f, err = Export(handMatrix([5]string{"a", "verb", long, "read", "deny"}), "role:x", ClaudeCode, "hcp")
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"note: claude-code: " + long + ": deny cannot be expressed: Claude Code registers it as mcp__hcp__" + long +
		", longer than the 64 characters a tool name may have; left unwritten, so the session's permission mode decides for it"}
	if got := noteStrings(f.Notes); !reflect.DeepEqual(got, want) {
		t.Errorf("notes:\n%q\nwant:\n%q", got, want)
	}
}

// TestNamesFollowHarnessCode: for every subject of seed 004's example and
// of the example packs (without a tenant and for tenant acme), each rule
// of the Claude Code and OpenCode files is the name the harness's own code
// gives one of the subject's tools, and every tool that no note leaves
// unwritten has its rule.
func TestNamesFollowHarnessCode(t *testing.T) {
	for _, ex := range exampleMatrices(t) {
		for _, subject := range ex.mx.Subjects {
			for _, h := range []Harness{ClaudeCode, OpenCode} {
				t.Run(ex.name+"/"+subject+"/"+string(h), func(t *testing.T) {
					f, err := Export(ex.mx, subject, h, ex.server)
					if err != nil {
						t.Fatal(err)
					}
					tools, _, err := ToolsOf(ex.mx, subject)
					if err != nil {
						t.Fatal(err)
					}
					unwritten := map[string]bool{}
					for _, n := range f.Notes {
						unwritten[n.Tool] = unwritten[n.Tool] || n.Unwritten
					}
					var want []string
					for _, tool := range tools {
						if unwritten[tool.Name] {
							continue
						}
						if h == ClaudeCode {
							want = append(want, claudeCodeName(ex.server, tool.Name))
						} else {
							want = append(want, openCodeName(ex.server, tool.Name))
						}
					}
					got := writtenNames(t, h, f.Data)
					if h == ClaudeCode {
						// Claude Code's file lists by disposition, not in matrix order.
						got, want = sortedCopy(got), sortedCopy(want)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("names %q\nwant %q", got, want)
					}
				})
			}
		}
	}
}

// writtenNames returns the tool names of a Claude Code file (allow, ask,
// deny, in that order) or an OpenCode file (actions in order).
func writtenNames(t *testing.T, h Harness, data []byte) []string {
	t.Helper()
	var names []string
	switch h {
	case ClaudeCode:
		var f struct {
			Permissions struct{ Allow, Ask, Deny []string } `json:"permissions"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		names = append(append(append(names, f.Permissions.Allow...), f.Permissions.Ask...), f.Permissions.Deny...)
	case OpenCode:
		var f struct {
			Permissions []struct{ Action string } `json:"permissions"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		for _, r := range f.Permissions {
			names = append(names, r.Action)
		}
	case Gemini:
		var f struct {
			Rule []struct{ ToolName string } `toml:"rule"`
		}
		if _, err := toml.Decode(string(data), &f); err != nil {
			t.Fatal(err)
		}
		for _, r := range f.Rule {
			names = append(names, r.ToolName)
		}
	}
	return names
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	slices.Sort(out)
	return out
}
