package source

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
)

// Equal reports whether two decoded JSON values are equal: objects with
// the same members, arrays with the same elements in order, numbers with
// the same value whatever their text ("2.80" as a number equals 2.8).
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
		x, y := number(a), number(b)
		return x != nil && y != nil && x.Cmp(y) == 0
	}
	return a == b
}

// number reads a decoded JSON number exactly; nil for anything else.
func number(v any) *big.Rat {
	var text string
	switch v := v.(type) {
	case json.Number:
		text = v.String()
	case float64:
		text = strconv.FormatFloat(v, 'g', -1, 64)
	case int:
		text = strconv.Itoa(v)
	case int64:
		text = strconv.FormatInt(v, 10)
	default:
		return nil
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return nil
	}
	return r
}
