package source

import (
	"encoding/json"
	"testing"
)

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
	}
	for _, tt := range tests {
		if got := Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("Equal(%#v, %#v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
