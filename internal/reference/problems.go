package reference

import (
	"slices"
	"strings"
)

// maxProblems is how many of an input's shape problems an invalid_input
// decision names (docs/decisions.md item 1).
const maxProblems = 8

// memberKinds is what each member of a decision input must be
// (docs/files.md#the-decision-input), by path.
var memberKinds = []struct {
	path []string
	kind string
}{
	{[]string{"principal"}, "an object"},
	{[]string{"principal", "id"}, "a string"},
	{[]string{"principal", "tenant"}, "a string"},
	{[]string{"principal", "roles"}, "an array of strings"},
	{[]string{"principal", "projects"}, "an array of strings"},
	{[]string{"pack_id"}, "a string"},
	{[]string{"args"}, "an object"},
	{[]string{"confirm"}, "a boolean"},
	{[]string{"apply"}, "a boolean"},
	{[]string{"dry_run"}, "a boolean"},
	{[]string{"pack_reachable"}, "a boolean"},
	{[]string{"access"}, "an object"},
	{[]string{"access", "mode"}, `"ask" or "run"`},
	{[]string{"access", "allow"}, "an array of objects"},
	{[]string{"project_id"}, "a string"},
	{[]string{"owner"}, "a string"},
	{[]string{"workspace"}, "an object"},
	{[]string{"workspace", "root"}, "a string"},
	{[]string{"workspace", "paths"}, "an array of strings"},
}

// required are the members a decision input must carry; nonEmpty the
// strings that must not be "".
var (
	required = [][]string{{"principal"}, {"principal", "id"}, {"pack_id"}}
	nonEmpty = [][]string{{"principal", "id"}, {"pack_id"}}
)

// inputProblems says what is wrong with a decision input's shape, by path,
// sorted, at most maxProblems (docs/decisions.md item 1); none for a
// well-formed input.
func inputProblems(input any) []string {
	return firstSorted(append(shapeProblems(input), keyProblems(input)...))
}

// firstSorted sorts problems and keeps the first maxProblems.
func firstSorted(problems []string) []string {
	slices.Sort(problems)
	return problems[:min(len(problems), maxProblems)]
}

// keyProblems are what is wrong with the call's key
// (docs/files.md#the-decision-input), which a
// listing does not carry.
func keyProblems(input any) []string {
	doc, ok := input.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	_, verb := doc["verb_key"]
	_, stimulus := doc["stimulus"]
	if verb == stimulus {
		out = append(out, "top level: give exactly one of verb_key and stimulus")
	}
	for _, field := range []string{"verb_key", "stimulus"} {
		v, ok := doc[field]
		if s, isString := v.(string); ok && !isString {
			out = append(out, field+": must be a string")
		} else if ok && s == "" {
			out = append(out, field+": must not be empty")
		}
	}
	return out
}

// shapeProblems are what is wrong with the rest of the input.
func shapeProblems(input any) []string {
	doc, ok := input.(map[string]any)
	if !ok {
		return []string{"top level: must be an object"}
	}
	var out []string
	for _, path := range required {
		parent, ok := lookup(doc, path[:len(path)-1])
		if _, isObject := parent.(map[string]any); ok && isObject {
			if _, ok := lookup(doc, path); !ok {
				out = append(out, strings.Join(path, ".")+": is required")
			}
		}
	}
	for _, path := range nonEmpty {
		if v, ok := lookup(doc, path); ok && v == "" {
			out = append(out, strings.Join(path, ".")+": must not be empty")
		}
	}
	for _, m := range memberKinds {
		if v, ok := lookup(doc, m.path); ok && !isKind(v, m.kind) {
			out = append(out, strings.Join(m.path, ".")+": must be "+m.kind)
		}
	}
	return out
}

// lookup follows path from doc through objects; false when a member on
// the way is absent or not an object.
func lookup(doc map[string]any, path []string) (any, bool) {
	var v any = doc
	for _, name := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[name]; !ok {
			return nil, false
		}
	}
	return v, true
}

// isKind reports whether v is what memberKinds calls kind.
func isKind(v any, kind string) bool {
	switch kind {
	case "an object":
		_, ok := v.(map[string]any)
		return ok
	case "a string":
		_, ok := v.(string)
		return ok
	case "a boolean":
		_, ok := v.(bool)
		return ok
	case `"ask" or "run"`:
		return v == "ask" || v == "run"
	}
	items, ok := v.([]any)
	for _, item := range items {
		if !isKind(item, elementKinds[kind]) {
			return false
		}
	}
	return ok
}

// elementKinds is what each element of an array kind must be.
var elementKinds = map[string]string{"an array of strings": "a string", "an array of objects": "an object"}
