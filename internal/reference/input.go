package reference

import (
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/schema"
)

// call is a well-formed input document (docs/files.md#the-decision-input),
// read once into the facts the chain needs.
type call struct {
	principal principal
	packID    string
	kind      compile.Kind
	key       string
	args      map[string]any // nil when absent
	confirm   bool
	apply     bool
	reachable bool   // pack_reachable is not false
	mode      string // "ask" when absent
	allow     []any
	owner     fact
	projectID fact
	root      fact
	paths     []string
}

// principal is the identity that the enforcement point verified. Nothing
// else in the input changes who the caller is or which tenant applies.
type principal struct {
	id       string
	tenant   fact
	roles    []string
	projects []string
}

// fact is an optional string of the input: given says whether it was there.
type fact struct {
	value string
	given bool
}

// readCall checks input against the input schema (docs/decisions.md
// item 1) and reads it. It reports false for an input that is not well
// formed.
func readCall(input any, wellFormed *schema.Schema) (*call, bool) {
	doc, ok := input.(map[string]any)
	if !ok || !wellFormed.Valid(input) {
		return nil, false
	}
	c := &call{
		principal: readPrincipal(doc["principal"].(map[string]any)),
		packID:    doc["pack_id"].(string),
		kind:      compile.Verb,
		confirm:   doc["confirm"] == true,
		apply:     doc["apply"] == true,
		reachable: doc["pack_reachable"] != false,
		mode:      "ask",
		owner:     stringFact(doc, "owner"),
		projectID: stringFact(doc, "project_id"),
	}
	c.key, _ = doc["verb_key"].(string)
	if key, ok := doc["stimulus"].(string); ok {
		c.kind, c.key = compile.Stimulus, key
	}
	c.args, _ = doc["args"].(map[string]any)
	if access, ok := doc["access"].(map[string]any); ok {
		if mode, ok := access["mode"].(string); ok {
			c.mode = mode
		}
		c.allow, _ = access["allow"].([]any)
	}
	if ws, ok := doc["workspace"].(map[string]any); ok {
		c.root = stringFact(ws, "root")
		c.paths = stringList(ws["paths"])
	}
	return c, true
}

func readPrincipal(p map[string]any) principal {
	return principal{
		id:       p["id"].(string),
		tenant:   stringFact(p, "tenant"),
		roles:    stringList(p["roles"]),
		projects: stringList(p["projects"]),
	}
}

// stringFact reads an optional string member of obj.
func stringFact(obj map[string]any, name string) fact {
	s, ok := obj[name].(string)
	return fact{value: s, given: ok}
}

// stringList reads an array of strings; the schema has checked the types.
func stringList(v any) []string {
	items, _ := v.([]any)
	out := make([]string, 0, len(items))
	for _, item := range items {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
