package decimal

import (
	"encoding/json"
	"slices"
)

// Equal reports whether two decoded JSON values are equal: objects with
// the same members, arrays with the same elements in order, numbers with
// the same value whatever their text ("2.80" as a number equals 2.8) when
// both are at most MaxNumberLen characters, and otherwise only when written
// alike, so that no comparison costs more than reading the values.
func Equal(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			if w, ok := bm[k]; !ok || !Equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		bs, ok := b.([]any)
		return ok && slices.EqualFunc(a, bs, Equal)
	case json.Number, float64, int, int64:
		x, _ := NumberText(a)
		y, ok := NumberText(b)
		return ok && sameNumber(x, y)
	}
	return a == b
}
