package reference

import (
	"encoding/json"
	"slices"
)

// Fires reports whether a runtime rule value (data.hcp.ext.deny or
// data.hcp.ext.confirm) takes effect. It does unless it is undefined,
// false, null, or an empty set, array or object; anything else fires, so
// that a runtime writing `deny := true` is obeyed (docs/decisions.md item 6).
func Fires(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}

// reasonsOf lists a firing runtime value's reasons, sorted byte-wise
// without repeats: the members of a set or array, the keys of an object,
// or the value itself. A string is kept as is; any other value becomes its
// compact JSON text.
func reasonsOf(v any) []string {
	var reasons []string
	switch v := v.(type) {
	case []any:
		for _, item := range v {
			reasons = append(reasons, reasonText(item))
		}
	case map[string]any:
		for key := range v {
			reasons = append(reasons, key)
		}
	default:
		reasons = append(reasons, reasonText(v))
	}
	slices.Sort(reasons)
	return slices.Compact(reasons)
}

// reasonText is a reason as the decision carries it.
func reasonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return compactJSON(v)
}

// compactJSON renders a decoded JSON value as encoding/json does, which is
// also what OPA's json.marshal produces: sorted object keys, numbers as
// their JSON text, and <, >, & escaped.
func compactJSON(v any) string {
	text, err := json.Marshal(v)
	if err != nil {
		return "" // not a decoded JSON value
	}
	return string(text)
}
