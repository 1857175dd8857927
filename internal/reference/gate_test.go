package reference

import (
	"fmt"
	"testing"
)

// TestGate decides gated calls for each gate × mode × confirm/apply, and
// runtime-added gates (docs/decisions.md item 7).
func TestGate(t *testing.T) {
	e := ledgerFixture([2]string{"member.json", memberGrants}).evaluator(t)
	runtime := Ext{Confirm: map[string]any{"after hours": true}}
	tests := []struct {
		name    string
		call    string
		ext     Ext
		want    string
		reasons string
	}{
		{"true, no access", `"verb_key": "transfer"`, Ext{}, confirmRequired, `[]`},
		{"true, mode absent", `"verb_key": "transfer", "access": {}`, Ext{}, confirmRequired, `[]`},
		{"true, mode ask", `"verb_key": "transfer", "access": { "mode": "ask" }`, Ext{}, confirmRequired, `[]`},
		{"true, mode run", `"verb_key": "transfer", "access": { "mode": "run" }`, Ext{}, allowed, `[]`},
		{"true, confirm", `"verb_key": "transfer", "confirm": true`, Ext{}, allowed, `[]`},
		{"true, apply", `"verb_key": "transfer", "apply": true`, Ext{}, allowed, `[]`},
		{"true, confirm and apply false", `"verb_key": "transfer", "confirm": false, "apply": false`, Ext{}, confirmRequired, `[]`},
		{"true, dry run", `"verb_key": "transfer", "dry_run": true`, Ext{}, confirmRequired, `[]`},
		{"always, mode ask", `"verb_key": "close", "access": { "mode": "ask" }`, Ext{}, confirmRequired, `[]`},
		{"always, mode run", `"verb_key": "close", "access": { "mode": "run" }`, Ext{}, confirmRequired, `[]`},
		{"always, confirm", `"verb_key": "close", "confirm": true`, Ext{}, allowed, `[]`},
		{"always, apply", `"verb_key": "close", "apply": true, "access": { "mode": "run" }`, Ext{}, allowed, `[]`},
		{"false gates nothing", `"verb_key": "note"`, Ext{}, allowed, `[]`},
		{"absent gates nothing", `"verb_key": "balance"`, Ext{}, allowed, `[]`},
		{"runtime gate, mode ask", `"verb_key": "note"`, runtime, confirmRequired, `["after hours"]`},
		{"runtime gate, mode run", `"verb_key": "note", "access": { "mode": "run" }`, runtime, allowed, `[]`},
		{"runtime gate, confirm", `"verb_key": "note", "confirm": true`, runtime, allowed, `[]`},
		{"runtime gate on a true row keeps no reasons", `"verb_key": "transfer"`, runtime, confirmRequired, `[]`},
		{"runtime gate never lowers always", `"verb_key": "close", "access": { "mode": "run" }`, runtime, confirmRequired, `[]`},
		{"runtime gate on a trigger", `"stimulus": "payment_received"`, runtime, confirmRequired, `["after hours"]`},
		{"runtime gate on a trigger, mode run", `"stimulus": "payment_received", "access": { "mode": "run" }`, runtime, allowed, `[]`},
		{"empty runtime confirm", `"verb_key": "note"`, Ext{Confirm: []any{}}, allowed, `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := `{ "principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger", "owner": "bob", ` + tt.call + ` }`
			d := e.Decide(decode(t, input), tt.ext)
			if d["code"] != tt.want {
				t.Errorf("code = %v, want %q", d["code"], tt.want)
			}
			assertJSON(t, d["reasons"], tt.reasons)
		})
	}
}

// TestAllowRules matches the user's allow rules against transfer in mode
// ask, where only a rule can pass the gate (docs/decisions.md item 8).
func TestAllowRules(t *testing.T) {
	e := ledgerFixture([2]string{"member.json", memberGrants}).evaluator(t)
	const rule = `"pack_id": "ledger", "verb_key": "transfer"`
	const call = `{ "amount": "2.80", "payee": "demo" }`
	tests := []struct {
		name  string
		rules string
		args  string // "" for no args member
		match bool
	}{
		{"every argument pinned", `[{ ` + rule + `, "args": { "amount": "2.80", "payee": "demo" } }]`, call, true},
		{"pinned and limited", `[{ ` + rule + `, "args": { "payee": "demo" }, "limits": { "amount": { "max": 5 } } }]`, call, true},
		{"max is inclusive", `[{ ` + rule + `, "args": { "payee": "demo" }, "limits": { "amount": { "max": 2.8 } } }]`, call, true},
		{"above max", `[{ ` + rule + `, "args": { "payee": "demo" }, "limits": { "amount": { "max": 2.79 } } }]`, call, false},
		{"min is inclusive", `[{ ` + rule + `, "args": { "payee": "demo" }, "limits": { "amount": { "min": "2.8" } } }]`, call, true},
		{"below min", `[{ ` + rule + `, "args": { "payee": "demo" }, "limits": { "amount": { "min": 2.81, "max": 3 } } }]`, call, false},
		{"min above max", `[{ ` + rule + `, "args": { "payee": "demo" }, "limits": { "amount": { "min": 3, "max": 2 } } }]`, call, false},
		{"string bounds", `[{ ` + rule + `, "args": { "payee": "demo" }, "limits": { "amount": { "min": "-1", "max": "5" } } }]`, call, true},
		{"no bounds still wants a number", `[{ ` + rule + `, "args": { "payee": "demo" }, "limits": { "amount": {} } }]`, call, true},
		{"no bounds, not a number", `[{ ` + rule + `, "limits": { "amount": {}, "payee": {} } }]`, call, false},
		{"JSON number argument", `[{ ` + rule + `, "limits": { "amount": { "max": 5 } } }]`, `{ "amount": 4.999 }`, true},
		{"exponent argument", `[{ ` + rule + `, "limits": { "amount": { "max": 5 } } }]`, `{ "amount": 5e0 }`, true},
		{"huge exponent bound", `[{ ` + rule + `, "limits": { "amount": { "max": 1e400 } } }]`, `{ "amount": 9e399 }`, true},
		{"huge exponent argument", `[{ ` + rule + `, "limits": { "amount": { "max": 1e400 } } }]`, `{ "amount": 1.1e400 }`, false},
		{"negative numbers", `[{ ` + rule + `, "limits": { "amount": { "min": -2, "max": -1 } } }]`, `{ "amount": "-1.5" }`, true},
		{"negative below min", `[{ ` + rule + `, "limits": { "amount": { "min": -2 } } }]`, `{ "amount": "-2.01" }`, false},
		{"leading zeros in a numeric string", `[{ ` + rule + `, "limits": { "amount": { "max": 8 } } }]`, `{ "amount": "007" }`, true},
		{"boolean fails a limit", `[{ ` + rule + `, "limits": { "amount": { "max": 5 } } }]`, `{ "amount": true }`, false},
		{"null fails a limit", `[{ ` + rule + `, "limits": { "amount": { "max": 5 } } }]`, `{ "amount": null }`, false},
		{"exponent string is not a number", `[{ ` + rule + `, "limits": { "amount": { "max": 5 } } }]`, `{ "amount": "1e0" }`, false},
		{"spaced string is not a number", `[{ ` + rule + `, "limits": { "amount": { "max": 5 } } }]`, `{ "amount": " 1" }`, false},
		{"plus sign is not a number", `[{ ` + rule + `, "limits": { "amount": { "max": 5 } } }]`, `{ "amount": "+1" }`, false},
		{"bare dot is not a number", `[{ ` + rule + `, "limits": { "amount": { "max": 5 } } }]`, `{ "amount": "1." }`, false},
		{"pinned value differs", `[{ ` + rule + `, "args": { "amount": "2.80", "payee": "other" } }]`, call, false},
		{"pinned string is not the number", `[{ ` + rule + `, "args": { "amount": 2.8 } }]`, `{ "amount": "2.8" }`, false},
		{"pinned strings compare as strings", `[{ ` + rule + `, "args": { "amount": "2.8" } }]`, `{ "amount": "2.80" }`, false},
		{"pinned number by value", `[{ ` + rule + `, "args": { "amount": 2.8 } }]`, `{ "amount": 2.80 }`, true},
		{"pinned number by value, exponent", `[{ ` + rule + `, "args": { "amount": 280e-2 } }]`, `{ "amount": 2.8 }`, true},
		{"pinned object, numbers by value", `[{ ` + rule + `, "args": { "m": { "a": [1, "x"] } } }]`, `{ "m": { "a": [1.0, "x"] } }`, true},
		{"pinned object with another member", `[{ ` + rule + `, "args": { "m": { "a": [1, "x"] } } }]`, `{ "m": { "a": [1, "x"], "b": null } }`, false},
		{"pinned array order", `[{ ` + rule + `, "args": { "m": [1, 2] } }]`, `{ "m": [2, 1] }`, false},
		{"pinned null", `[{ ` + rule + `, "args": { "m": null } }]`, `{ "m": null }`, true},
		{"pinned null is not absent", `[{ ` + rule + `, "args": { "m": null } }]`, `{}`, false},
		{"pinned false", `[{ ` + rule + `, "args": { "m": false } }]`, `{ "m": false }`, true},
		{"pinned argument missing", `[{ ` + rule + `, "args": { "amount": "2.80", "payee": "demo", "memo": "x" } }]`, call, false},
		{"an argument the rule does not name", `[{ ` + rule + `, "args": { "payee": "demo" } }]`, call, false},
		{"limit on an argument the call lacks", `[{ ` + rule + `, "args": { "payee": "demo" }, "limits": { "amount": { "max": 5 } } }]`, `{ "payee": "demo" }`, true},
		{"pinned and limited: both apply", `[{ ` + rule + `, "args": { "amount": "9" }, "limits": { "amount": { "max": 5 } } }]`, `{ "amount": "9" }`, false},
		{"no args, rule without args", `[{ ` + rule + ` }]`, "", true},
		{"empty args, rule with empty members", `[{ ` + rule + `, "args": {}, "limits": {} }]`, `{}`, true},
		{"another verb", `[{ "pack_id": "ledger", "verb_key": "balance" }]`, "", false},
		{"another pack", `[{ "pack_id": "mail", "verb_key": "transfer" }]`, "", false},
		{"the second rule matches", `[{ "pack_id": "ledger" }, { ` + rule + ` }]`, "", true},
		{"malformed: empty rule", `[{}]`, "", false},
		{"malformed: no verb_key", `[{ "pack_id": "ledger" }]`, "", false},
		{"malformed: no pack_id", `[{ "verb_key": "transfer" }]`, "", false},
		{"malformed: unknown member", `[{ ` + rule + `, "stimulus": "x" }]`, "", false},
		{"malformed: null member", `[{ ` + rule + `, "args": null }]`, "", false},
		{"malformed: pack_id a number", `[{ "pack_id": 1, "verb_key": "transfer" }]`, "", false},
		{"malformed: args an array", `[{ ` + rule + `, "args": [] }]`, "", false},
		{"malformed: limits an array", `[{ ` + rule + `, "limits": [] }]`, "", false},
		{"malformed: a limit a number", `[{ ` + rule + `, "limits": { "amount": 5 } }]`, `{ "amount": "2" }`, false},
		{"malformed: a limit's unknown member", `[{ ` + rule + `, "limits": { "amount": { "max": 5, "step": 1 } } }]`, `{ "amount": "2" }`, false},
		{"malformed: a boolean bound", `[{ ` + rule + `, "limits": { "amount": { "max": true } } }]`, `{ "amount": "2" }`, false},
		{"malformed: a bound not numeric", `[{ ` + rule + `, "limits": { "amount": { "max": "5e0" } } }]`, `{ "amount": "2" }`, false},
		{"malformed: unused malformed limit", `[{ ` + rule + `, "limits": { "other": { "max": "x" } } }]`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := ""
			if tt.args != "" {
				args = `, "args": ` + tt.args
			}
			input := fmt.Sprintf(`{ "principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger",
				"verb_key": "transfer", "owner": "bob", "access": { "allow": %s }%s }`, tt.rules, args)
			want := confirmRequired
			if tt.match {
				want = allowed
			}
			if got := decideCode(t, e, input, Ext{}); got != want {
				t.Errorf("code = %q, want %q", got, want)
			}
		})
	}
}

// TestAllowRulesAlwaysAndTriggers checks that a rule passes an "always"
// gate, and never matches a trigger.
func TestAllowRulesAlwaysAndTriggers(t *testing.T) {
	e := ledgerFixture([2]string{"member.json", memberGrants}).evaluator(t)
	const who = `"principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger", "owner": "bob"`
	tests := []struct {
		name, input string
		ext         Ext
		want        string
	}{
		{"always yields to a rule", `{ ` + who + `, "verb_key": "close", "args": { "account": "a-1" },
			"access": { "allow": [{ "pack_id": "ledger", "verb_key": "close", "args": { "account": "a-1" } }] } }`, Ext{}, allowed},
		{"a rule naming a trigger", `{ ` + who + `, "stimulus": "payment_received",
			"access": { "allow": [{ "pack_id": "ledger", "verb_key": "payment_received" }] } }`, Ext{Confirm: true}, confirmRequired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decideCode(t, e, tt.input, tt.ext); got != tt.want {
				t.Errorf("code = %q, want %q", got, tt.want)
			}
		})
	}
}
