package reference

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// decimal is an exact number, sign × 0.digits × 10^exp, with digits free of
// leading and trailing zeros; zero has no digits. Comparing two decimals
// costs no more than reading them, however large their exponents, so a
// hostile "1e999999999" stays cheap where math/big would expand it.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

var (
	// jsonNumber is the number grammar of RFC 8259.
	jsonNumber = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$`)
	// numericString is the string form SPEC §3.4 counts as a number.
	numericString = regexp.MustCompile(`^-?[0-9]+(?:\.[0-9]+)?$`)
)

// maxExp bounds exponents so that exp arithmetic cannot overflow; no
// input of a few MiB can tell two exponents beyond it apart.
const maxExp = 1 << 58

// numberOf reads v as a number the way an allow rule's limits do: a JSON
// number, or a string of the form -?[0-9]+(\.[0-9]+)?. Anything else,
// a boolean too, is not a number.
func numberOf(v any) (decimal, bool) {
	switch v := v.(type) {
	case string:
		if !numericString.MatchString(v) {
			return decimal{}, false
		}
		return parseDecimal(v), true
	default:
		return jsonNumberOf(v)
	}
}

// jsonNumberOf reads v as a JSON number value (json.Number, or float64 as
// plain encoding/json decodes numbers).
func jsonNumberOf(v any) (decimal, bool) {
	var text string
	switch v := v.(type) {
	case json.Number:
		text = string(v)
	case float64:
		text = strconv.FormatFloat(v, 'g', -1, 64)
	default:
		return decimal{}, false
	}
	if !jsonNumber.MatchString(text) {
		return decimal{}, false
	}
	return parseDecimal(text), true
}

// parseDecimal reads text that matches jsonNumber or numericString.
func parseDecimal(text string) decimal {
	var d decimal
	text, d.neg = strings.CutPrefix(text, "-")
	mantissa, exponent, _ := strings.Cut(strings.ToLower(text), "e")
	whole, frac, _ := strings.Cut(mantissa, ".")
	digits := whole + frac
	d.exp = int64(len(whole)) + parseExp(exponent)
	trimmed := strings.TrimLeft(digits, "0")
	d.exp -= int64(len(digits) - len(trimmed))
	d.digits = strings.TrimRight(trimmed, "0")
	if d.digits == "" {
		return decimal{}
	}
	return d
}

// parseExp reads an exponent such as "+12" or "-3" ("" is 0), clamped to
// ±maxExp.
func parseExp(s string) int64 {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	var e int64
	for _, r := range s {
		e = min(e*10+int64(r-'0'), maxExp)
	}
	if neg {
		return -e
	}
	return e
}

// sign is -1, 0 or 1.
func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmp compares two decimals by value: -1, 0 or 1.
func (d decimal) cmp(o decimal) int {
	if a, b := d.sign(), o.sign(); a != b || a == 0 {
		return compareInts(a, b)
	}
	magnitude := compareInts(d.exp, o.exp)
	if magnitude == 0 {
		magnitude = strings.Compare(d.digits, o.digits)
	}
	return magnitude * d.sign()
}

func compareInts[T int | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// jsonEqual reports whether two decoded JSON values are equal, numbers by
// value (1 equals 1.0) and never equal to strings or booleans.
func jsonEqual(a, b any) bool {
	if x, ok := jsonNumberOf(a); ok {
		y, ok := jsonNumberOf(b)
		return ok && x.cmp(y) == 0
	}
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !jsonEqual(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case string, bool, nil:
		return a == b
	}
	return false
}
