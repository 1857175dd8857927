package export

import (
	"fmt"
	"regexp"
	"strings"
)

// Seed 004 writes each harness's names as that harness's documentation
// read on 2026-10-13, and asks that they be compared with what the harness
// actually registers when the adapter is delivered. The notes here carry
// what that comparison found (README "Matrix and harness export"): the
// file is still written as seed 004 and SPEC §5.3 say, and the note tells
// the operator which rules to check before relying on them.

// claudeToolChars is what Claude Code keeps of an MCP tool name: the
// Anthropic API's tool names are letters, digits, _ and -, and Claude Code
// turns any other character into _ when it names an MCP tool.
var claudeToolChars = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// claudeMaxName is the length of the longest tool name the Anthropic API
// takes, mcp__<server>__<tool> whole.
const claudeMaxName = 64

// claudeNames notes the tools whose rules Claude Code may not match: names
// with characters it rewrites, and names longer than the API takes. The
// tools here are MCP tool names (see nameable), so a byte is a character.
func claudeNames(server string, tools []Tool) []Note {
	var odd, long []string
	for _, t := range tools {
		if !claudeToolChars.MatchString(t.Name) {
			odd = append(odd, t.Name)
		}
		if len(ClaudeRule(server, t.Name)) > claudeMaxName {
			long = append(long, t.Name)
		}
	}
	var notes []Note
	if len(odd) > 0 {
		notes = append(notes, claudeCharsNote(server, odd))
	}
	if len(long) > 0 {
		notes = append(notes, Note{Harness: ClaudeCode, Text: fmt.Sprintf(
			"mcp__%s__<tool> is longer than the %d characters the Anthropic API takes for a tool name, so Claude Code may not offer these tools under that name and these rules may match no tool: %s",
			server, claudeMaxName, strings.Join(long, ", "))})
	}
	return notes
}

// claudeCharsNote is the note on tools whose names hold characters that
// Claude Code turns into _: of an MCP tool name's, only ".".
func claudeCharsNote(server string, odd []string) Note {
	return Note{Harness: ClaudeCode, Text: fmt.Sprintf(
		"written as seed 004 writes them (%s), but Claude Code turns characters other than letters, digits, _ and - into _ when it names an MCP tool (%s), "+
			"so these rules may match no tool and the session's mode decides: check them with /doctor before relying on them: %s",
		ClaudeRule(server, odd[0]), ClaudeRule(server, strings.ReplaceAll(odd[0], ".", "_")), strings.Join(odd, ", "))}
}

// openCodeNames notes the rules whose action OpenCode may not register:
// seed 004 turns "-" into "_", while OpenCode keeps "-" in the server and
// tool names of the actions it registers.
func openCodeNames(server string, tools []Tool) []Note {
	var odd []string
	for _, t := range tools {
		if strings.Contains(server+t.Name, "-") {
			odd = append(odd, t.Name)
		}
	}
	if len(odd) == 0 {
		return nil
	}
	kept := strings.ReplaceAll(server, ".", "_") + "_" + strings.ReplaceAll(odd[0], ".", "_")
	return []Note{{Harness: OpenCode, Text: fmt.Sprintf(
		"actions are written with - turned into _ as seed 004 writes them (%s), but OpenCode keeps - in the actions it registers (%s), "+
			"so these rules may match no tool and OpenCode's default applies: compare with the actions OpenCode registers: %s",
		OpenCodeAction(server, odd[0]), kept, strings.Join(odd, ", "))}}
}

// codexAutoNote notes that approval_mode "auto" leaves the prompt to the
// server: Codex asks for a tool whose annotations do not mark it
// read-only, so an allowed tool may still ask (never the other way).
func codexAutoNote(auto []string) []Note {
	if len(auto) == 0 {
		return nil
	}
	return []Note{{Harness: Codex, Text: `approval_mode = "auto" leaves the prompt to the server's tool annotations: ` +
		"Codex asks for a tool the server does not mark read-only (readOnlyHint), so these allowed tools may still ask: " + strings.Join(auto, ", ")}}
}

// geminiServerNote notes a server name holding "_", with which Gemini
// CLI's documentation says policy rules can fail to match.
func geminiServerNote(server string) []Note {
	if !strings.Contains(server, "_") {
		return nil
	}
	return []Note{{Harness: Gemini, Text: fmt.Sprintf(
		"the server name %q holds _, and Gemini CLI's documentation warns that policy rules for such a server can fail to match: prefer a --server without _", server)}}
}
