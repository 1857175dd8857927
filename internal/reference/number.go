package reference

import (
	"encoding/json"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// decimal is an exact number, sign × 0.digits × 10^exp, with digits free of
// leading and trailing zeros; zero has no digits. The exponent is a big
// integer, since 64 characters can write one of sixty digits; the digits
// never need arithmetic at all.
type decimal struct {
	neg    bool
	digits string
	exp    *big.Int
}

var (
	// jsonNumber is the number grammar of RFC 8259.
	jsonNumber = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$`)
	// numericString is the string form docs/decisions.md (item 8) counts as a
	// number.
	numericString = regexp.MustCompile(`^-?[0-9]+(?:\.[0-9]+)?$`)
)

// maxNumberLen is the longest number, as written, that an allow rule
// judges (docs/decisions.md item 8): a longer one fails a limit, whatever
// its value.
const maxNumberLen = 64

// numberOf reads v as a number the way an allow rule's limits do: a JSON
// number, or a string of the form -?[0-9]+(\.[0-9]+)?, of at most
// maxNumberLen characters as written. Anything else, a boolean too, is not
// a number.
func numberOf(v any) (decimal, bool) {
	text, ok := v.(string)
	if ok && !numericString.MatchString(text) {
		return decimal{}, false
	}
	if !ok {
		text, ok = jsonNumberText(v)
	}
	if !ok || len(text) > maxNumberLen {
		return decimal{}, false
	}
	return parseDecimal(text), true
}

// jsonNumberText is the text of a JSON number value (json.Number, or
// float64 as plain encoding/json decodes numbers).
func jsonNumberText(v any) (string, bool) {
	var text string
	switch v := v.(type) {
	case json.Number:
		text = string(v)
	case float64:
		text = strconv.FormatFloat(v, 'g', -1, 64)
	default:
		return "", false
	}
	return text, jsonNumber.MatchString(text)
}

// parseDecimal reads text that matches jsonNumber or numericString.
func parseDecimal(text string) decimal {
	d := decimal{exp: new(big.Int)}
	text, d.neg = strings.CutPrefix(text, "-")
	mantissa, exponent, _ := strings.Cut(strings.ToLower(text), "e")
	whole, frac, _ := strings.Cut(mantissa, ".")
	digits := whole + frac
	trimmed := strings.TrimLeft(digits, "0")
	d.digits = strings.TrimRight(trimmed, "0")
	if d.digits == "" {
		return decimal{exp: new(big.Int)}
	}
	if exponent != "" {
		d.exp.SetString(strings.TrimPrefix(exponent, "+"), 10)
	}
	d.exp.Add(d.exp, big.NewInt(int64(len(whole)-(len(digits)-len(trimmed)))))
	return d
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
	magnitude := d.exp.Cmp(o.exp)
	if magnitude == 0 {
		magnitude = strings.Compare(d.digits, o.digits)
	}
	return magnitude * d.sign()
}

func compareInts(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// jsonEqual reports whether two decoded JSON values are equal, never a
// number and a string or boolean. Numbers of at most maxNumberLen
// characters are equal by value (1 equals 1.0); a longer number equals
// only the same text, so that no pinned argument costs more than its
// length to judge.
func jsonEqual(a, b any) bool {
	if x, ok := jsonNumberText(a); ok {
		y, ok := jsonNumberText(b)
		if !ok {
			return false
		}
		if max(len(x), len(y)) > maxNumberLen {
			return x == y
		}
		return parseDecimal(x).cmp(parseDecimal(y)) == 0
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
