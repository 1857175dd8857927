package export

import (
	"github.com/hcp-rego/hcp-rego/internal/matrix"
)

// OpenCodeSchema is the $schema that OpenCode's config files name.
const OpenCodeSchema = "https://opencode.ai/config.json"

// openCodeConfig is OpenCode's permissions (v2): rules of action,
// resource and effect, the last match winning. v1's permission object has
// no key for an MCP tool, so only v2 is written.
type openCodeConfig struct {
	Schema      string         `json:"$schema"`
	Permissions []openCodeRule `json:"permissions"`
}

type openCodeRule struct {
	Action   string `json:"action"`
	Resource string `json:"resource"`
	Effect   string `json:"effect"`
}

// openCodeUnwritten is what decides for a tool that the file leaves out:
// OpenCode's default policy, which allows everything.
const openCodeUnwritten = "OpenCode's default policy decides for it (it allows everything unless another rule of the user's matches)"

// writeOpenCode writes one rule a tool, resource "*", in matrix order, with
// the action OpenCode registers the tool under (OpenCodeAction). OpenCode's
// default policy allows everything, so every tool is written, deny and ask
// included, except one whose name OpenCode cannot tell apart or offer
// (docs/matrix.md, "Names as each harness registers them"): that one is
// left out and noted, saying the default then
// decides.
func writeOpenCode(server string, tools, left []Tool) (*File, error) {
	c := openCodeConfig{Schema: OpenCodeSchema, Permissions: []openCodeRule{}}
	kept, notes := registered(OpenCode, server, tools, left, unshortened(OpenCodeAction), MaxRegisteredName, openCodeUnwritten)
	for _, t := range kept {
		c.Permissions = append(c.Permissions, openCodeRule{Action: t.Registered, Resource: "*", Effect: openCodeEffect(t.Disposition)})
	}
	data, err := encodeJSON(c)
	if err != nil {
		return nil, err
	}
	return &File{Data: data, Notes: notes}, nil
}

func openCodeEffect(d matrix.Disposition) string {
	switch d {
	case matrix.Allow:
		return "allow"
	case matrix.Ask:
		return "ask"
	}
	return "deny"
}
