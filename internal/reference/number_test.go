package reference

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNumberCompare compares numbers by exact value.
func TestNumberCompare(t *testing.T) {
	tests := []struct {
		a, b any
		want int
	}{
		{json.Number("1"), json.Number("1.0"), 0},
		{json.Number("0"), json.Number("-0"), 0},
		{json.Number("0"), "-0.000", 0},
		{"2.80", json.Number("2.8"), 0},
		{json.Number("280e-2"), "2.8", 0},
		{json.Number("1E2"), json.Number("100"), 0},
		{json.Number("1e+2"), json.Number("99.99999"), 1},
		{"007", json.Number("7"), 0},
		{"0.05", "0.5", -1},
		{"10", "9", 1},
		{"-10", "-9", -1},
		{"-1", "0", -1},
		{"0", "0.0001", -1},
		{"0.1", json.Number("1e-1"), 0},
		{json.Number("0.30000000000000000001"), json.Number("0.3"), 1},
		{json.Number("1e400"), json.Number("9e399"), 1},
		{json.Number("-1e400"), json.Number("-9e399"), -1},
		{json.Number("1e-400"), json.Number("0"), 1},
		{json.Number("1e99999999999999999999"), json.Number("1e400"), 1},
		{json.Number("1e-99999999999999999999"), json.Number("0"), 1},
		{float64(2.5), "2.50", 0},
		{"123456789012345678901234567890", "123456789012345678901234567891", -1},
		// Exact where float64 rounds (docs/decisions.md item 8).
		{"12.500000000000000010", json.Number("12.50"), 1},
		{json.Number("1000000000000000063.10"), json.Number("1000000000000000000.50"), 1},
		{json.Number("12.500000000000000010"), json.Number("12.5"), 1},
		{json.Number("-0"), json.Number("0.0"), 0},
		{json.Number("1e2"), "100.000", 0},
		// Exponents beyond int64, within 64 characters.
		{json.Number("1e" + strings.Repeat("9", 60)), json.Number("1e" + strings.Repeat("9", 59) + "8"), 1},
		{json.Number("1e-" + strings.Repeat("9", 60)), json.Number("1e-" + strings.Repeat("9", 59) + "8"), -1},
		{json.Number("-1e" + strings.Repeat("9", 60)), json.Number("-1e" + strings.Repeat("9", 59) + "8"), -1},
		// 64 characters as written.
		{strings.Repeat("9", 64), "1" + strings.Repeat("0", 63), 1},
	}
	for _, tt := range tests {
		a, okA := numberOf(tt.a)
		b, okB := numberOf(tt.b)
		if !okA || !okB {
			t.Errorf("%v, %v: not numbers", tt.a, tt.b)
			continue
		}
		if got := a.cmp(b); got != tt.want {
			t.Errorf("cmp(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := b.cmp(a); got != -tt.want {
			t.Errorf("cmp(%v, %v) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

// TestNotNumbers lists values a limit never counts as numbers.
func TestNotNumbers(t *testing.T) {
	for _, v := range []any{true, false, nil, "", "-", "1.", ".5", "+1", "1e3", " 1", "1 ", "0x10", "NaN", "½",
		[]any{json.Number("1")}, map[string]any{}, json.Number("01"), json.Number("1."), json.Number("NaN"),
		json.Number(long), long, json.Number("1e" + strings.Repeat("0", 63)), "-" + strings.Repeat("1", 64),
		"1" + strings.Repeat("0", 1<<20)} {
		if _, ok := numberOf(v); ok {
			t.Errorf("numberOf(%#v) counts as a number", v)
		}
	}
}

// long is a number of 65 characters.
var long = "1" + strings.Repeat("0", 64)

// TestJSONEqual holds pinned-argument equality: deep, numbers by value.
func TestJSONEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true},
		{`1`, `"1"`, false},
		{`"a"`, `"a"`, true},
		{`true`, `true`, true},
		{`true`, `1`, false},
		{`null`, `null`, true},
		{`null`, `false`, false},
		{`[]`, `{}`, false},
		{`[1, [2]]`, `[1.0, [2e0]]`, true},
		{`[1, 2]`, `[1, 2, 3]`, false},
		{`{"a": 1}`, `{"a": 1, "b": 2}`, false},
		{`{"a": {"b": [null]}}`, `{"a": {"b": [null]}}`, true},
		{`{"a": 1}`, `{"b": 1}`, false},
		{`12.500000000000000010`, `12.50`, false},
		{`[1e2]`, `[100.0]`, true},
		// Longer than 64 characters: equal only as written.
		{long, long, true},
		{long, long + "0", false},
		{long, long + "e0", false},
		{`"` + long + `"`, long, false},
	}
	for _, tt := range tests {
		t.Run(tt.a+" "+tt.b, func(t *testing.T) {
			a, b := decode(t, tt.a), decode(t, tt.b)
			if got := jsonEqual(a, b); got != tt.want {
				t.Errorf("jsonEqual(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := jsonEqual(b, a); got != tt.want {
				t.Errorf("jsonEqual(%s, %s) = %v, want %v", tt.b, tt.a, got, tt.want)
			}
		})
	}
}
