package explain

import (
	"github.com/hcp-rego/hcp-rego/compile"
)

// call is what explanation reads of an input, leniently: a malformed input
// is explained by its schema problems, not by this.
type call struct {
	pack      string
	kind      compile.Kind
	key       string
	principal map[string]any
	input     map[string]any
}

func readCall(input any) call {
	in, _ := input.(map[string]any)
	c := call{input: in}
	c.pack, _ = in["pack_id"].(string)
	c.principal, _ = in["principal"].(map[string]any)
	if key, ok := in["verb_key"].(string); ok {
		c.key = key
	} else {
		c.kind = compile.Stimulus
		c.key, _ = in["stimulus"].(string)
	}
	return c
}

func (c call) noun() string {
	if c.kind == compile.Stimulus {
		return "stimulus"
	}
	return "command"
}

// str returns a string field of an object, and whether it is there.
func str(obj map[string]any, field string) (string, bool) {
	s, ok := obj[field].(string)
	return s, ok
}

// strs returns the string elements of an array field.
func strs(obj map[string]any, field string) []string {
	list, _ := obj[field].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
