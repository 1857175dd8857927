package export

import (
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

// ClaudeRule is Claude Code's rule for an MCP tool: mcp__<server>__<tool>.
// Tool names hold no parentheses (a rule with a specifier, which Claude
// Code skips for mcp__ rules) and no glob characters (see nameable).
func ClaudeRule(server, tool string) string { return "mcp__" + server + "__" + tool }

// writeClaude writes every disposition to its list.
func writeClaude(server string, tools []Tool) (*File, error) {
	p := claudePermissions{Allow: []string{}, Ask: []string{}, Deny: []string{}}
	for _, t := range tools {
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
	return &File{Data: data, Notes: claudeNames(server, tools)}, nil
}
