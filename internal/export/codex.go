package export

import (
	"github.com/hcp-rego/hcp-rego/internal/matrix"
)

// codexConfig is the part of Codex's config.toml that export writes: one
// [mcp_servers.<server>] table with no url, command or token (those belong
// to the server's own configuration).
type codexConfig struct {
	MCPServers map[string]codexServer `toml:"mcp_servers"`
}

// codexServer lists the tools: enabled_tools is an allow list,
// disabled_tools a deny list applied after it, and tools.<tool> carries a
// tool's approval_mode.
type codexServer struct {
	EnabledTools  []string             `toml:"enabled_tools"`
	DisabledTools []string             `toml:"disabled_tools"`
	Tools         map[string]codexTool `toml:"tools,omitempty"`
}

type codexTool struct {
	ApprovalMode string `toml:"approval_mode"`
}

// The approval modes seed 004 maps to.
const (
	codexAuto   = "auto"
	codexPrompt = "prompt"
)

// writeCodex writes deny to disabled_tools (only), ask as an enabled tool
// with approval_mode "prompt", and allow of a read tool as an enabled tool
// with "auto". No defined approval_mode means "allow a write and do not
// ask again", so allow of a write tool is enabled (it is not denied) with
// no approval_mode: that cell is unwritten and noted, and Codex's
// default_tools_approval_mode decides.
func writeCodex(server string, tools []Tool) (*File, error) {
	s := codexServer{EnabledTools: []string{}, DisabledTools: []string{}, Tools: map[string]codexTool{}}
	var notes []Note
	var auto []string
	for _, t := range tools {
		switch {
		case t.Disposition == matrix.Deny:
			s.DisabledTools = append(s.DisabledTools, t.Name)
		case t.Disposition == matrix.Ask:
			s.EnabledTools = append(s.EnabledTools, t.Name)
			s.Tools[t.Name] = codexTool{ApprovalMode: codexPrompt}
		case !t.Write:
			s.EnabledTools = append(s.EnabledTools, t.Name)
			s.Tools[t.Name] = codexTool{ApprovalMode: codexAuto}
			auto = append(auto, t.Name)
		default:
			s.EnabledTools = append(s.EnabledTools, t.Name)
			notes = append(notes, Note{Harness: Codex, Tool: t.Name, Unwritten: true,
				Text: "allow of a write tool cannot be expressed (no approval_mode means \"allow a write without asking\"); " +
					"enabled with no approval_mode, so default_tools_approval_mode decides"})
		}
	}
	data, err := encodeTOML(codexConfig{MCPServers: map[string]codexServer{server: s}})
	if err != nil {
		return nil, err
	}
	return &File{Data: data, Notes: append(notes, codexAutoNote(auto)...)}, nil
}
