package reference

import (
	"encoding/json"
	"testing"
)

// TestRuntimeLayer holds the shapes data.hcp.ext.deny may take and the
// reasons each gives (docs/decisions.md item 6).
func TestRuntimeLayer(t *testing.T) {
	tests := []struct {
		name    string
		value   any
		reasons string // "" when the value does not fire
	}{
		{"undefined", nil, ""},
		{"false", false, ""},
		{"empty set", []any{}, ""},
		{"empty object", map[string]any{}, ""},
		{"true", true, `["true"]`},
		{"set of strings, sorted without repeats", []any{"quiet hours", "account frozen", "quiet hours"}, `["account frozen", "quiet hours"]`},
		{"set of other values", []any{"x", json.Number("1.50"), true, nil, map[string]any{"k": "<v>&"}, []any{"a"}},
			`["1.50", "[\"a\"]", "null", "true", "x", "{\"k\":\"\\u003cv\\u003e\\u0026\"}"]`},
		{"object: its keys", map[string]any{"quiet": true, "frozen": false}, `["frozen", "quiet"]`},
		{"a string", "frozen", `["frozen"]`},
		{"an empty string", "", `[""]`},
		{"zero", json.Number("0"), `["0"]`},
		{"an array holding an empty array", []any{[]any{}}, `["[]"]`},
		{"byte-wise order", []any{"b", "B", "é", "a"}, `["B", "a", "b", "é"]`},
	}
	e := ledgerFixture([2]string{"member.json", memberGrants}).evaluator(t)
	input := `{ "principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger", "verb_key": "balance", "owner": "bob" }`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := e.Decide(decode(t, input), Ext{Deny: tt.value})
			wantCode, wantReasons := runtimeDenied, tt.reasons
			if tt.reasons == "" {
				wantCode, wantReasons = allowed, `[]`
			}
			if d["code"] != wantCode {
				t.Errorf("code = %v, want %q", d["code"], wantCode)
			}
			assertJSON(t, d["reasons"], wantReasons)
		})
	}
}

// TestRuntimeLayerOrder checks that the runtime layer only narrows: it
// never runs before the land check, and deny wins over confirm.
func TestRuntimeLayerOrder(t *testing.T) {
	e := ledgerFixture([2]string{"member.json", memberGrants}).evaluator(t)
	const who = `"principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger"`
	tests := []struct {
		name, input string
		ext         Ext
		want        string
	}{
		{"land first", `{ ` + who + `, "verb_key": "balance", "owner": "eve" }`, Ext{Deny: true}, landDenied},
		{"capability first", `{ "principal": { "id": "eve" }, "pack_id": "ledger", "verb_key": "balance", "owner": "eve" }`, Ext{Deny: true}, capabilityRequired},
		{"deny before confirm", `{ ` + who + `, "verb_key": "transfer", "owner": "bob" }`, Ext{Deny: true, Confirm: true}, runtimeDenied},
		{"deny of a confirmed call", `{ ` + who + `, "verb_key": "transfer", "owner": "bob", "confirm": true }`, Ext{Deny: []any{"no"}}, runtimeDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decideCode(t, e, tt.input, tt.ext); got != tt.want {
				t.Errorf("code = %q, want %q", got, tt.want)
			}
		})
	}
}
