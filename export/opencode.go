package export

import (
	"fmt"
	"strings"

	"github.com/hcp-rego/hcp-rego/matrix"
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

// OpenCodeAction is OpenCode's action for an MCP tool: <server>_<tool>,
// with "." and "-" (characters OpenCode does not support in either name)
// turned into "_".
func OpenCodeAction(server, tool string) string {
	return openCodeName(server) + "_" + openCodeName(tool)
}

func openCodeName(s string) string { return strings.NewReplacer(".", "_", "-", "_").Replace(s) }

// writeOpenCode writes one rule a tool, resource "*", in matrix order.
// OpenCode's default policy allows everything, so every tool must be
// written, deny and ask included: two tools whose names become the same
// action cannot both be, and that is an error rather than a file that
// leaves one to the default.
func writeOpenCode(server string, tools []Tool) (*File, error) {
	c := openCodeConfig{Schema: OpenCodeSchema, Permissions: []openCodeRule{}}
	toolOf := map[string]string{}
	for _, t := range tools {
		action := OpenCodeAction(server, t.Name)
		if other, dup := toolOf[action]; dup {
			return nil, fmt.Errorf("opencode: tools %q and %q both become action %q", other, t.Name, action)
		}
		toolOf[action] = t.Name
		c.Permissions = append(c.Permissions, openCodeRule{Action: action, Resource: "*", Effect: openCodeEffect(t.Disposition)})
	}
	data, err := encodeJSON(c)
	if err != nil {
		return nil, err
	}
	return &File{Data: data, Notes: openCodeNames(server, tools)}, nil
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
