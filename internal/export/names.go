package export

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// As docs/matrix.md says ("Names as each harness registers them"), a rule
// is written with the name the harness itself gives the
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

// namer gives the name a harness registers a tool under, and that name
// before the harness shortens it (the same, for a harness that does not).
type namer func(server, tool string) (registered, whole string)

// unshortened makes a namer of a name that a harness never shortens.
func unshortened(name func(server, tool string) string) namer {
	return func(server, tool string) (string, string) {
		n := name(server, tool)
		return n, n
	}
}

// registeredTool is a tool and the name its harness registers it under.
type registeredTool struct {
	Tool
	Registered string
}

// registered names each tool as harness h registers it (name) and keeps
// those the harness can tell apart and offer: a name that two tools get, or
// one longer than maxLen before the harness shortens it (if it does), is
// written for neither, and each such tool is noted as cannot be expressed.
// left are the server's tools that nameable left out: unwritten, but
// registered all the same, so a tool of tools whose name one of them gets
// too is not written either (x_y, when x y is registered as x_y, would
// otherwise allow it). what is the harness's default for an unwritten
// tool, for the note.
func registered(h Harness, server string, tools, left []Tool, name namer, maxLen int, what string) ([]registeredTool, []Note) {
	count := map[string]int{}
	for _, t := range slices.Concat(tools, left) {
		reg, _ := name(server, t.Name)
		count[reg]++
	}
	var kept []registeredTool
	var notes []Note
	for _, t := range tools {
		reg, whole := name(server, t.Name)
		var why string
		switch {
		case count[reg] > 1:
			why = fmt.Sprintf("%s registers it as %s, the name of another tool of the server too", harnessTitle[h], reg)
		case len(whole) > maxLen && reg != whole:
			why = fmt.Sprintf("%s shortens its name %s, longer than the %d characters a tool name may have, to %s, which no rule naming the tool matches", harnessTitle[h], whole, maxLen, reg)
		case len(whole) > maxLen:
			why = fmt.Sprintf("%s registers it as %s, longer than the %d characters a tool name may have", harnessTitle[h], reg, maxLen)
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
var harnessTitle = map[Harness]string{ClaudeCode: "Claude Code", OpenCode: "OpenCode", Gemini: "Gemini CLI"}

// MaxGeminiName is the longest name Gemini CLI registers a tool under as
// it is; a longer one it shortens to its first and last 30 characters
// around "...", which a rule naming the tool in full no longer matches and
// which another tool may share.
const MaxGeminiName = 63

// geminiUnnamed is a character that Gemini CLI turns into "_" in a name.
var geminiUnnamed = regexp.MustCompile(`[^A-Za-z0-9_.:-]`)

// GeminiName is the name Gemini CLI 0.61 registers an MCP tool under
// (@google/gemini-cli-core, generateValidName of "<server>_<tool>"):
// mcp_<S>_<T>, every character outside [A-Za-z0-9_.:-] turned into "_",
// and a name over MaxGeminiName shortened to its first and last 30
// characters around "..."; whole is the name before it is shortened.
// (Server names start with a letter or a digit, and "mcp_" before them
// makes the name start with a letter.)
func GeminiName(server, tool string) (registered, whole string) {
	whole = server + "_" + tool
	if !strings.HasPrefix(whole, "mcp_") {
		whole = "mcp_" + whole
	}
	whole = geminiUnnamed.ReplaceAllLiteralString(whole, "_")
	if len(whole) > MaxGeminiName {
		return whole[:30] + "..." + whole[len(whole)-30:], whole
	}
	return whole, whole
}
