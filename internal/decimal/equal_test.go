package decimal

import (
	"encoding/json"
	"strings"
	"testing"
)

// long is a number of 65 characters: equal only to the same text.
var long = "1" + strings.Repeat("0", 64)

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b any
		want bool
	}{
		{json.Number("2.80"), json.Number("2.8"), true},
		{json.Number("1e2"), 100.0, true},
		{json.Number("1"), "1", false},
		{json.Number("1"), true, false},
		{nil, nil, true},
		{nil, false, false},
		{[]any{}, []any{}, true},
		{[]any{}, map[string]any{}, false},
		{map[string]any{"a": nil}, map[string]any{}, false},
		{map[string]any{"a": json.Number("-0")}, map[string]any{"a": json.Number("0")}, true},
		{json.Number("12.500000000000000010"), json.Number("12.50"), false},
		{json.Number("1000000000000000063.10"), json.Number("1000000000000000000.50"), false},
		{json.Number(long), json.Number(long), true},
		{json.Number(long), json.Number(long + "e0"), false},
	}
	for _, tt := range tests {
		if got := Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("Equal(%#v, %#v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestDecimal compares limits' numbers exactly, within 64 characters.
func TestDecimal(t *testing.T) {
	tests := []struct {
		a, b any
		want int
	}{
		{"12.500000000000000010", json.Number("12.50"), 1},
		{json.Number("1.25e1"), "12.50", 0},
		{json.Number("-0"), "0.000", 0},
		{json.Number("-1e30000"), "-99", -1},
		{json.Number("1E-2"), "0.010", 0},
		{strings.Repeat("9", 64), "1" + strings.Repeat("0", 63), 1},
		{2.5, 3, -1},
	}
	for _, tt := range tests {
		a, okA := LimitNumber(tt.a)
		b, okB := LimitNumber(tt.b)
		if !okA || !okB {
			t.Errorf("%v, %v: not numbers", tt.a, tt.b)
			continue
		}
		if got := a.Cmp(b); got != tt.want {
			t.Errorf("Cmp(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	for _, v := range []any{long, json.Number(long), "1e3", "+1", " 1", true, nil, "1" + strings.Repeat("0", 1<<20)} {
		if _, ok := LimitNumber(v); ok {
			t.Errorf("LimitNumber(%.80v) counts as a number", v)
		}
	}
}
