// Package decimal compares the numbers of a decision exactly: a JSON
// number or a numeric string of at most MaxNumberLen characters as a
// decimal, never through float64, and decoded JSON values with their
// numbers compared so.
package decimal

import (
	"cmp"
	"encoding/json"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// MaxNumberLen is the longest number, as written, that is judged by value
// (docs/decisions.md item 8): an allow rule's limit fails on a longer one,
// and a longer number equals only the same text. The bound keeps every
// comparison as cheap as reading the number, whatever the input holds.
const MaxNumberLen = 64

// Decimal is an exact decimal number: (-1)^neg × 0.digits × 10^exp, with
// digits free of leading and trailing zeros; zero has no digits. It is
// never rounded to a float64, so "12.500000000000000010" is above 12.50.
type Decimal struct {
	neg    bool
	digits string
	exp    big.Int
}

// decimalText is a JSON number or a numeric string (-?[0-9]+(\.[0-9]+)?),
// in parts: sign, whole digits, fraction digits and exponent.
var decimalText = regexp.MustCompile(`^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([-+]?[0-9]+))?$`)

// numericString is the string form docs/decisions.md (item 8) counts as a
// number.
var numericString = regexp.MustCompile(`^-?[0-9]+(?:\.[0-9]+)?$`)

// LimitNumber reads v as an allow rule's limits read it: a JSON number or a
// string of the form -?[0-9]+(\.[0-9]+)?, of at most MaxNumberLen
// characters. Anything else, a boolean too, is not a number.
func LimitNumber(v any) (*Decimal, bool) {
	text, ok := v.(string)
	if ok && (len(text) > MaxNumberLen || !numericString.MatchString(text)) {
		return nil, false
	}
	if !ok {
		text, ok = NumberText(v)
	}
	if !ok {
		return nil, false
	}
	return ParseDecimal(text)
}

// NumberText is the text of a decoded JSON number (json.Number, or the Go
// numbers plain decoding and literals give); false for anything else.
func NumberText(v any) (string, bool) {
	switch v := v.(type) {
	case json.Number:
		return v.String(), true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	}
	return "", false
}

// ParseDecimal reads a JSON number or numeric string of at most
// MaxNumberLen characters.
func ParseDecimal(text string) (*Decimal, bool) {
	if len(text) > MaxNumberLen {
		return nil, false
	}
	m := decimalText.FindStringSubmatch(text)
	if m == nil {
		return nil, false
	}
	d := &Decimal{}
	digits := m[2] + m[3]
	significant := strings.TrimLeft(digits, "0")
	d.digits = strings.TrimRight(significant, "0")
	if d.digits == "" {
		return d, true
	}
	d.neg = m[1] == "-"
	if m[4] != "" {
		d.exp.SetString(strings.TrimPrefix(m[4], "+"), 10)
	}
	d.exp.Add(&d.exp, big.NewInt(int64(len(m[2])-len(digits)+len(significant))))
	return d, true
}

// Cmp compares d and o by value: -1, 0 or 1.
func (d *Decimal) Cmp(o *Decimal) int {
	if s, t := d.sign(), o.sign(); s != t || s == 0 {
		return cmp.Compare(s, t)
	}
	magnitude := d.exp.Cmp(&o.exp)
	if magnitude == 0 {
		magnitude = strings.Compare(d.digits, o.digits)
	}
	return magnitude * d.sign()
}

func (d *Decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// sameNumber reports whether two number texts are equal: by value when
// both are at most MaxNumberLen characters, by text otherwise.
func sameNumber(a, b string) bool {
	x, okX := ParseDecimal(a)
	y, okY := ParseDecimal(b)
	if !okX || !okY {
		return a == b
	}
	return x.Cmp(y) == 0
}
