package export

import (
	"fmt"
	"regexp"
)

// SPEC §5.3.1: a rule is written with the name the harness itself gives the
// MCP tool, read from the harness's own code, so that the rule matches the
// tool. Claude Code 2.1 and OpenCode 1.18 both turn every character of the
// server and tool names outside [A-Za-z0-9_-] into "_" and join them: Claude
// Code as mcp__<S>__<T>, OpenCode as <S>_<T> (packages/opencode/src/mcp,
// `name.replace(/[^a-zA-Z0-9_-]/g, "_")` on each part). Two tools of one
// server that get one name, or a name the model APIs do not take, cannot be
// told apart or offered by that name: neither is written (docs/matrix.md).

// unregistered is a character that Claude Code and OpenCode turn into "_" in
// a server or tool name.
var unregistered = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// MaxRegisteredName is the longest name, whole, that Claude Code and
// OpenCode give a tool and that the model APIs they call take (Anthropic's
// and OpenAI's tool names: at most 64 characters).
const MaxRegisteredName = 64

// registeredPart is a server or tool name as Claude Code and OpenCode keep
// it: every character outside [A-Za-z0-9_-] turned into "_".
func registeredPart(s string) string { return unregistered.ReplaceAllLiteralString(s, "_") }

// ClaudeRule is the name Claude Code registers an MCP tool under, and so
// its permission rule: mcp__<server>__<tool>, both parts as registeredPart
// keeps them (documents.search becomes mcp__hub__documents_search). Tool
// names hold no parentheses (a rule with a specifier, which Claude Code
// skips for mcp__ rules) and no glob characters (see nameable).
func ClaudeRule(server, tool string) string {
	return "mcp__" + registeredPart(server) + "__" + registeredPart(tool)
}

// OpenCodeAction is the name OpenCode registers an MCP tool under, and so
// its permission rule's action: <server>_<tool>, both parts as
// registeredPart keeps them ("-" stays: hub_case-gateway_dispatch).
func OpenCodeAction(server, tool string) string {
	return registeredPart(server) + "_" + registeredPart(tool)
}

// registeredTool is a tool and the name its harness registers it under.
type registeredTool struct {
	Tool
	Registered string
}

// registered names each tool as harness h registers it (name) and keeps
// those the harness can tell apart and offer: a name that two tools get, or
// one longer than MaxRegisteredName, is written for neither, and each such
// tool is noted as cannot be expressed. what is the harness's default for
// an unwritten tool, for the note.
func registered(h Harness, server string, tools []Tool, name func(server, tool string) string, what string) ([]registeredTool, []Note) {
	count := map[string]int{}
	for _, t := range tools {
		count[name(server, t.Name)]++
	}
	var kept []registeredTool
	var notes []Note
	for _, t := range tools {
		reg := name(server, t.Name)
		var why string
		switch {
		case count[reg] > 1:
			why = fmt.Sprintf("%s registers it as %s, the name of another tool of the server too", harnessTitle[h], reg)
		case len(reg) > MaxRegisteredName:
			why = fmt.Sprintf("%s registers it as %s, longer than the %d characters a tool name may have", harnessTitle[h], reg, MaxRegisteredName)
		default:
			kept = append(kept, registeredTool{Tool: t, Registered: reg})
			continue
		}
		notes = append(notes, Note{Harness: h, Tool: t.Name, Unwritten: true,
			Text: fmt.Sprintf("%s cannot be expressed: %s; left unwritten, so %s", t.Disposition, why, what)})
	}
	return kept, notes
}

// harnessTitle is a harness's name in a note's prose.
var harnessTitle = map[Harness]string{ClaudeCode: "Claude Code", OpenCode: "OpenCode"}
