package reference

import "testing"

// TestGPARSError checks the GPARS error object for every code
// (docs/decisions.md item 10).
func TestGPARSError(t *testing.T) {
	e := ledgerFixture([2]string{"member.json", memberGrants}).evaluator(t)
	const who = `"principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger"`
	tests := []struct {
		name  string
		input string
		ext   Ext
		want  string // "null" when undefined
	}{
		{"invalid input", `{ "pack_id": "ledger" }`, Ext{},
			`{ "code": -32001, "message": "The request is not permitted for this agent.", "data": { "gpars_code": "AUTHORIZATION_DENIED" } }`},
		{"unknown command", `{ ` + who + `, "verb_key": "refund" }`, Ext{},
			`{ "code": -32001, "message": "refund is not permitted for this agent.", "data": { "gpars_code": "AUTHORIZATION_DENIED" } }`},
		{"pack unavailable", `{ ` + who + `, "verb_key": "balance", "pack_reachable": false }`, Ext{},
			`{ "code": -32002, "message": "MCP server 'ledger' is not reachable.", "data": { "gpars_code": "SERVER_UNAVAILABLE" } }`},
		{"unknown pack unavailable is unknown", `{ ` + `"principal": { "id": "bob" }, "pack_id": "bank", "verb_key": "x", "pack_reachable": false }`, Ext{},
			`{ "code": -32001, "message": "x is not permitted for this agent.", "data": { "gpars_code": "AUTHORIZATION_DENIED" } }`},
		{"capability required", `{ "principal": { "id": "eve" }, "pack_id": "ledger", "verb_key": "transfer" }`, Ext{},
			`{ "code": -32001, "message": "transfer is not permitted for this agent.", "data": { "gpars_code": "AUTHORIZATION_DENIED" } }`},
		{"land denied, a trigger", `{ ` + who + `, "stimulus": "payment_received" }`, Ext{},
			`{ "code": -32001, "message": "payment_received is not permitted for this agent.", "data": { "gpars_code": "AUTHORIZATION_DENIED" } }`},
		{"runtime denied", `{ ` + who + `, "verb_key": "balance", "owner": "bob" }`, Ext{Deny: true},
			`{ "code": -32001, "message": "balance is not permitted for this agent.", "data": { "gpars_code": "AUTHORIZATION_DENIED" } }`},
		{"confirm required", `{ ` + who + `, "verb_key": "transfer", "owner": "bob" }`, Ext{}, `null`},
		{"allowed", `{ ` + who + `, "verb_key": "balance", "owner": "bob" }`, Ext{}, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := GPARSError(e.Decide(decode(t, tt.input), tt.ext))
			if tt.want == "null" {
				if got != nil {
					t.Errorf("got %s, want none", canonical(t, got))
				}
				return
			}
			assertJSON(t, got, tt.want)
			if _, isInt := got["code"].(int); !isInt {
				t.Errorf("code is %T, want int", got["code"])
			}
		})
	}
	t.Run("not a decision", func(t *testing.T) {
		for _, d := range []map[string]any{nil, {}, {"code": "maybe"}, {"code": 1}} {
			if got := GPARSError(d); got != nil {
				t.Errorf("GPARSError(%v) = %v, want nil", d, got)
			}
		}
	})
}
