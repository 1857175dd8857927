package export

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/hcp-rego/hcp-rego/internal/matrix"
)

// unexpressed is what readBack gives for a tool whose file does not say
// what the harness does with it (it falls to a setting outside the file).
const unexpressed matrix.Disposition = "(unexpressed)"

// readBack reads a harness's file as that harness would, independently of
// the writers: for each tool, the disposition it gets. A tool the file
// does not name gets the harness's own default where seed 004 gives one.
func readBack(t *testing.T, h Harness, server string, data []byte, tools []string) map[string]matrix.Disposition {
	t.Helper()
	var read func(*testing.T, string, []byte, []string) map[string]matrix.Disposition
	switch h {
	case ClaudeCode:
		read = readClaude
	case Codex:
		read = readCodex
	case OpenCode:
		read = readOpenCode
	case Gemini:
		read = readGemini
	case Cursor:
		read = readCursor
	}
	return read(t, server, data, tools)
}

// harnessName is a server or tool name as Claude Code 2.1 and OpenCode
// 1.18 register it, written here apart from the writers: every character
// outside [A-Za-z0-9_-] becomes "_" (their code's
// name.replace(/[^a-zA-Z0-9_-]/g, "_")).
func harnessName(s string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// readClaude: a rule in deny, else ask, else allow (Claude Code's order),
// matched against the name Claude Code registers the tool under; a tool in
// no list is left to the session's mode.
func readClaude(t *testing.T, server string, data []byte, tools []string) map[string]matrix.Disposition {
	var f struct {
		Permissions map[string][]string `json:"permissions"`
	}
	mustJSON(t, data, &f)
	out := map[string]matrix.Disposition{}
	for _, tool := range tools {
		out[tool] = unexpressed
		for _, list := range []matrix.Disposition{matrix.Allow, matrix.Ask, matrix.Deny} {
			for _, rule := range f.Permissions[string(list)] {
				if rule == "mcp__"+harnessName(server)+"__"+harnessName(tool) {
					out[tool] = list
				}
			}
		}
	}
	return out
}

// readCodex: disabled_tools denies; a tool not in enabled_tools is not
// offered (deny); an enabled tool's approval_mode is auto (allow) or
// prompt (ask), and without one Codex's default decides.
func readCodex(t *testing.T, server string, data []byte, tools []string) map[string]matrix.Disposition {
	var f struct {
		MCPServers map[string]struct {
			EnabledTools  []string `toml:"enabled_tools"`
			DisabledTools []string `toml:"disabled_tools"`
			Tools         map[string]struct {
				ApprovalMode string `toml:"approval_mode"`
			} `toml:"tools"`
		} `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(data, &f); err != nil {
		t.Fatalf("parse codex file: %v", err)
	}
	s := f.MCPServers[server]
	out := map[string]matrix.Disposition{}
	for _, tool := range tools {
		mode := s.Tools[tool].ApprovalMode
		switch {
		case slices.Contains(s.DisabledTools, tool) || !slices.Contains(s.EnabledTools, tool):
			out[tool] = matrix.Deny
		case mode == "auto":
			out[tool] = matrix.Allow
		case mode == "prompt":
			out[tool] = matrix.Ask
		case mode == "":
			out[tool] = unexpressed
		default:
			t.Fatalf("codex tool %q: approval_mode %q", tool, mode)
		}
	}
	return out
}

// readOpenCode: the last rule whose action is the name OpenCode registers
// the tool under wins; OpenCode's default policy allows what no rule
// matches.
func readOpenCode(t *testing.T, server string, data []byte, tools []string) map[string]matrix.Disposition {
	var f struct {
		Permissions []struct{ Action, Resource, Effect string } `json:"permissions"`
	}
	mustJSON(t, data, &f)
	out := map[string]matrix.Disposition{}
	for _, tool := range tools {
		out[tool] = matrix.Allow
		for _, r := range f.Permissions {
			if r.Action == harnessName(server)+"_"+harnessName(tool) && r.Resource == "*" {
				out[tool] = matrix.Disposition(r.Effect)
			}
		}
	}
	return out
}

// readGemini: the rule for the server and tool decides (all have the same
// priority); ask_user asks in an interactive session.
func readGemini(t *testing.T, server string, data []byte, tools []string) map[string]matrix.Disposition {
	var f struct {
		Rule []struct {
			MCPName  string `toml:"mcpName"`
			ToolName string `toml:"toolName"`
			Decision string `toml:"decision"`
			Priority int    `toml:"priority"`
		} `toml:"rule"`
	}
	if err := toml.Unmarshal(data, &f); err != nil {
		t.Fatalf("parse gemini file: %v", err)
	}
	decisions := map[string]matrix.Disposition{"allow": matrix.Allow, "ask_user": matrix.Ask, "deny": matrix.Deny}
	out := map[string]matrix.Disposition{}
	for _, tool := range tools {
		out[tool] = unexpressed
		for _, r := range f.Rule {
			if r.MCPName == server && r.ToolName == tool && r.Priority == 100 {
				out[tool] = decisions[r.Decision]
			}
		}
	}
	return out
}

// readCursor, in the Allowlist run mode: a listed tool runs, any other
// asks.
func readCursor(t *testing.T, server string, data []byte, tools []string) map[string]matrix.Disposition {
	var f struct {
		MCPAllowlist []string `json:"mcpAllowlist"`
	}
	mustJSON(t, data, &f)
	out := map[string]matrix.Disposition{}
	for _, tool := range tools {
		out[tool] = matrix.Ask
		if slices.Contains(f.MCPAllowlist, server+":"+tool) {
			out[tool] = matrix.Allow
		}
	}
	return out
}

func mustJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("parse JSON: %v\n%s", err, data)
	}
}
