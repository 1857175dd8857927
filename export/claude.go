package export

import (
	"strings"

	"github.com/hcp-rego/hcp-rego/matrix"
)

// claudeSettings is the part of Claude Code's settings.json that export
// writes: permissions.allow, ask and deny, each a list of rules (always
// written, empty or not, as seed 004 shows). defaultMode and the like are
// a session's baseline, not a subject's, and are not written.
type claudeSettings struct {
	Permissions claudePermissions `json:"permissions"`
}

type claudePermissions struct {
	Allow []string `json:"allow"`
	Ask   []string `json:"ask"`
	Deny  []string `json:"deny"`
}

// ClaudeRule is Claude Code's rule for an MCP tool: mcp__<server>__<tool>,
// with no parentheses (a rule with a specifier would be another rule).
func ClaudeRule(server, tool string) string { return "mcp__" + server + "__" + tool }

// writeClaude writes every disposition to its list. Claude Code skips an
// mcp__ rule that contains parentheses, so such a tool is left unwritten.
func writeClaude(server string, tools []Tool) (*File, error) {
	p := claudePermissions{Allow: []string{}, Ask: []string{}, Deny: []string{}}
	var notes []Note
	for _, t := range tools {
		if strings.ContainsAny(t.Name, "()") {
			notes = append(notes, Note{Harness: ClaudeCode, Tool: t.Name, Unwritten: true,
				Text: string(t.Disposition) + " cannot be expressed: Claude Code skips an mcp__ rule that contains parentheses; left unwritten"})
			continue
		}
		rule := ClaudeRule(server, t.Name)
		switch t.Disposition {
		case matrix.Allow:
			p.Allow = append(p.Allow, rule)
		case matrix.Ask:
			p.Ask = append(p.Ask, rule)
		default:
			p.Deny = append(p.Deny, rule)
		}
	}
	data, err := encodeJSON(claudeSettings{Permissions: p})
	if err != nil {
		return nil, err
	}
	return &File{Data: data, Notes: notes}, nil
}
