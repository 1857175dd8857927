package export

import (
	"github.com/hcp-rego/hcp-rego/internal/matrix"
)

// cursorPermissions is Cursor's permissions.json: mcpAllowlist, a list of
// <server>:<tool>. There is no deny list.
type cursorPermissions struct {
	MCPAllowlist []string `json:"mcpAllowlist"`
}

// CursorEntry is Cursor's allowlist entry for an MCP tool.
func CursorEntry(server, tool string) string { return server + ":" + tool }

// writeCursor lists the allowed tools. Ask is the omission, which asks
// only in the Allowlist run mode: written in part, and noted. Deny cannot
// be expressed: the tool is left off the list too (where it asks, or goes
// to Auto-review's classifier; it is not refused), and noted.
func writeCursor(server string, tools []Tool) (*File, error) {
	p := cursorPermissions{MCPAllowlist: []string{}}
	var notes []Note
	for _, t := range tools {
		switch t.Disposition {
		case matrix.Allow:
			p.MCPAllowlist = append(p.MCPAllowlist, CursorEntry(server, t.Name))
		case matrix.Ask:
			notes = append(notes, Note{Harness: Cursor, Tool: t.Name,
				Text: "ask is left off mcpAllowlist, which asks only in the Allowlist run mode (Auto-review hands it to a classifier)"})
		default:
			notes = append(notes, Note{Harness: Cursor, Tool: t.Name, Unwritten: true,
				Text: "deny cannot be expressed (Cursor has no deny list); left off mcpAllowlist, so it is not refused: it asks in the Allowlist run mode"})
		}
	}
	data, err := encodeJSON(p)
	if err != nil {
		return nil, err
	}
	return &File{Data: data, Notes: notes}, nil
}
