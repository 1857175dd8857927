package explain

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/hcp-rego/hcp-rego/internal/decimal"
)

// ruleMismatch says why an exact allow rule does not match the call, or
// "" when it matches (docs/decisions.md item 8).
func ruleMismatch(rule any, c call) string {
	r, ok := rule.(map[string]any)
	if !ok {
		return "it is not an object"
	}
	for k := range r {
		if k != "pack_id" && k != "verb_key" && k != "args" && k != "limits" {
			return fmt.Sprintf("unknown field %q", k)
		}
	}
	verb, isVerb := str(c.input, "verb_key")
	switch {
	case r["pack_id"] != c.pack:
		return fmt.Sprintf("pack_id %v is not %q", jsonText(r["pack_id"]), c.pack)
	case !isVerb:
		return "allow rules match commands, not triggers"
	case r["verb_key"] != verb:
		return fmt.Sprintf("verb_key %v is not %q", jsonText(r["verb_key"]), verb)
	}
	pinned, ok1 := objectMember(r, "args")
	limits, ok2 := objectMember(r, "limits")
	if !ok1 || !ok2 {
		return "args and limits must be objects"
	}
	args, _ := objectMember(c.input, "args")
	return argsMismatch(args, pinned, limits)
}

func argsMismatch(args, pinned, limits map[string]any) string {
	for _, name := range slices.Sorted(maps.Keys(pinned)) {
		v, ok := args[name]
		if !ok {
			return fmt.Sprintf("pinned argument %q is not in the call", name)
		}
		if !decimal.Equal(v, pinned[name]) {
			return fmt.Sprintf("argument %q is %s, the rule pins %s", name, jsonText(v), jsonText(pinned[name]))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if _, p := pinned[name]; !p {
			if _, l := limits[name]; !l {
				return fmt.Sprintf("argument %q is neither pinned nor limited", name)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(limits)) {
		if why := limitMismatch(name, args, limits[name]); why != "" {
			return why
		}
	}
	return ""
}

func limitMismatch(name string, args map[string]any, limit any) string {
	l, ok := limit.(map[string]any)
	if !ok {
		return fmt.Sprintf("limits[%q] is not an object", name)
	}
	bounds := map[string]*decimal.Decimal{}
	for k, b := range l {
		n, ok := decimal.LimitNumber(b)
		if (k != "min" && k != "max") || !ok {
			return fmt.Sprintf("limits[%q] must hold only numbers min and max", name)
		}
		bounds[k] = n
	}
	v, present := args[name]
	if !present {
		return ""
	}
	x, ok := decimal.LimitNumber(v)
	switch {
	case !ok:
		return fmt.Sprintf("argument %q is %s, not a number of at most %d characters", name, jsonText(v), decimal.MaxNumberLen)
	case bounds["min"] != nil && x.Cmp(bounds["min"]) < 0:
		return fmt.Sprintf("argument %q is %s, below min %s", name, jsonText(v), jsonText(l["min"]))
	case bounds["max"] != nil && x.Cmp(bounds["max"]) > 0:
		return fmt.Sprintf("argument %q is %s, above max %s", name, jsonText(v), jsonText(l["max"]))
	}
	return ""
}

// objectMember is the object at key of o: {} when absent, and not ok when
// present with any other value (null included).
func objectMember(o map[string]any, key string) (map[string]any, bool) {
	v, present := o[key]
	if !present {
		return map[string]any{}, true
	}
	m, ok := v.(map[string]any)
	return m, ok
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
