package export

import (
	"github.com/hcp-rego/hcp-rego/internal/matrix"
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

// claudeUnwritten is what decides for a tool that the file leaves out.
const claudeUnwritten = "the session's permission mode decides for it"

// writeClaude writes every disposition to its list, as the rule of the name
// Claude Code registers the tool under (ClaudeRule); a tool whose name
// Claude Code cannot tell apart or offer is left out and noted.
func writeClaude(server string, tools, left []Tool) (*File, error) {
	p := claudePermissions{Allow: []string{}, Ask: []string{}, Deny: []string{}}
	kept, notes := registered(ClaudeCode, server, tools, left, unshortened(ClaudeRule), MaxRegisteredName, claudeUnwritten)
	for _, t := range kept {
		rule := t.Registered
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
