package reference

import (
	"sync"
	"testing"
)

// TestChain decides one input per step of docs/decisions.md#the-chain and
// checks the whole decision document.
func TestChain(t *testing.T) {
	e := ledgerFixture([2]string{"member.json", memberGrants}).evaluator(t)
	const member = `"principal": { "id": "bob", "roles": ["member"] }`
	tests := []struct {
		name  string
		input string
		ext   Ext
		want  string
	}{{
		name:  "invalid input",
		input: `{ "pack_id": "ledger", "verb_key": "balance" }`,
		want:  `{ "allow": false, "code": "invalid_input", "error": "invalid input", "reasons": ["principal: is required"] }`,
	}, {
		name:  "unknown pack",
		input: `{ ` + member + `, "pack_id": "bank", "verb_key": "balance" }`,
		want: `{ "allow": false, "code": "unknown_command", "error": "unknown command",
		         "pack_id": "bank", "verb_key": "balance", "reasons": [] }`,
	}, {
		name:  "unknown verb",
		input: `{ ` + member + `, "pack_id": "ledger", "verb_key": "refund" }`,
		want: `{ "allow": false, "code": "unknown_command", "error": "unknown command",
		         "pack_id": "ledger", "verb_key": "refund", "reasons": [] }`,
	}, {
		name:  "a trigger key asked as a verb",
		input: `{ ` + member + `, "pack_id": "ledger", "verb_key": "payment_received" }`,
		want: `{ "allow": false, "code": "unknown_command", "error": "unknown command",
		         "pack_id": "ledger", "verb_key": "payment_received", "reasons": [] }`,
	}, {
		name:  "a verb key asked as a trigger",
		input: `{ ` + member + `, "pack_id": "ledger", "stimulus": "balance" }`,
		want: `{ "allow": false, "code": "unknown_command", "error": "unknown command",
		         "pack_id": "ledger", "stimulus": "balance", "reasons": [] }`,
	}, {
		name:  "pack unavailable, capability held: no grant named, the chain stopped first",
		input: `{ ` + member + `, "pack_id": "ledger", "verb_key": "balance", "pack_reachable": false }`,
		want: `{ "allow": false, "code": "pack_unavailable", "error": "pack unavailable",
		         "pack_id": "ledger", "verb_key": "balance",
		         "operation": "read", "land": "personal", "capability": "verb.exec.read", "confirm": false,
		         "source": { "row": "packs/ledger/policy.json:5" },
		         "reasons": [] }`,
	}, {
		name:  "pack unavailable, capability not held",
		input: `{ "principal": { "id": "eve" }, "pack_id": "ledger", "verb_key": "balance", "pack_reachable": false }`,
		want: `{ "allow": false, "code": "pack_unavailable", "error": "pack unavailable",
		         "pack_id": "ledger", "verb_key": "balance",
		         "operation": "read", "land": "personal", "capability": "verb.exec.read", "confirm": false,
		         "source": { "row": "packs/ledger/policy.json:5" }, "reasons": [] }`,
	}, {
		name:  "capability required",
		input: `{ "principal": { "id": "eve" }, "pack_id": "ledger", "verb_key": "transfer", "owner": "eve" }`,
		want: `{ "allow": false, "code": "capability_required", "error": "capability required",
		         "pack_id": "ledger", "verb_key": "transfer",
		         "operation": "write", "land": "personal", "capability": "verb.exec.write", "confirm": true,
		         "source": { "row": "packs/ledger/policy.json:4" }, "reasons": [] }`,
	}, {
		name:  "land denied",
		input: `{ ` + member + `, "pack_id": "ledger", "verb_key": "close", "owner": "alice" }`,
		ext:   Ext{Deny: []any{"frozen"}},
		want: `{ "allow": false, "code": "land_denied", "error": "land denied",
		         "pack_id": "ledger", "verb_key": "close",
		         "operation": "write", "land": "personal", "capability": "verb.exec.write", "confirm": "always",
		         "source": { "row": "packs/ledger/policy.json:7", "grant": "grants/member.json:3" },
		         "reasons": [] }`,
	}, {
		name:  "runtime denied",
		input: `{ ` + member + `, "pack_id": "ledger", "stimulus": "payment_received", "owner": "bob" }`,
		ext:   Ext{Deny: []any{"quiet hours", "account frozen"}, Confirm: []any{"ignored"}},
		want: `{ "allow": false, "code": "runtime_denied", "error": "denied by runtime policy",
		         "pack_id": "ledger", "stimulus": "payment_received",
		         "operation": "read", "land": "personal", "capability": "sense.enable", "confirm": false,
		         "source": { "row": "packs/ledger/policy.json:14", "grant": "grants/member.json:3" },
		         "reasons": ["account frozen", "quiet hours"] }`,
	}, {
		name: "confirm required",
		input: `{ ` + member + `, "pack_id": "ledger", "verb_key": "transfer", "owner": "bob",
		          "args": { "amount": "2.80", "payee": "demo-transit" } }`,
		want: `{ "allow": false, "code": "confirm_required", "error": "confirm required",
		         "pack_id": "ledger", "verb_key": "transfer",
		         "operation": "write", "land": "personal", "capability": "verb.exec.write", "confirm": true,
		         "source": { "row": "packs/ledger/policy.json:4", "grant": "grants/member.json:3" },
		         "preview": { "command": "transfer", "args": { "amount": "2.80", "payee": "demo-transit" },
		                      "cli": "ledger transfer 2.80 --to demo-transit --confirm" },
		         "hint": "Nothing ran. Re-run with confirm=true only if the user has approved this exact action with these values.",
		         "reasons": [] }`,
	}, {
		name:  "confirm required by the runtime",
		input: `{ ` + member + `, "pack_id": "ledger", "verb_key": "note", "owner": "bob", "args": { "text": "it's" } }`,
		ext:   Ext{Confirm: []any{"after hours"}},
		want: `{ "allow": false, "code": "confirm_required", "error": "confirm required",
		         "pack_id": "ledger", "verb_key": "note",
		         "operation": "write", "land": "personal", "capability": "verb.exec.write", "confirm": false,
		         "source": { "row": "packs/ledger/policy.json:9", "grant": "grants/member.json:3" },
		         "preview": { "command": "note", "args": { "text": "it's" }, "cli": "ledger note 'it'\\''s' --confirm" },
		         "hint": "Nothing ran. Re-run with confirm=true only if the user has approved this exact action with these values.",
		         "reasons": ["after hours"] }`,
	}, {
		name: "allowed",
		input: `{ ` + member + `, "pack_id": "ledger", "verb_key": "transfer", "owner": "bob", "confirm": true,
		          "dry_run": true, "args": { "amount": "2.80", "payee": "demo-transit" }, "agent": "ignored" }`,
		want: `{ "allow": true, "code": "allowed",
		         "pack_id": "ledger", "verb_key": "transfer",
		         "operation": "write", "land": "personal", "capability": "verb.exec.write", "confirm": true,
		         "source": { "row": "packs/ledger/policy.json:4", "grant": "grants/member.json:3" },
		         "reasons": [] }`,
	}, {
		name:  "connect command needs pack.connect",
		input: `{ ` + member + `, "pack_id": "ledger", "verb_key": "connect", "owner": "bob" }`,
		want: `{ "allow": true, "code": "allowed",
		         "pack_id": "ledger", "verb_key": "connect",
		         "operation": "write", "land": "personal", "capability": "pack.connect", "confirm": false,
		         "source": { "row": "packs/ledger/policy.json:6", "grant": "grants/member.json:3" },
		         "reasons": [] }`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertJSON(t, e.Decide(decode(t, tt.input), tt.ext), tt.want)
		})
	}
}

// TestInvalidInput holds the well-formedness step to
// docs/files.md#the-decision-input and docs/decisions.md item 1, member by
// member.
func TestInvalidInput(t *testing.T) {
	e := ledgerFixture([2]string{"member.json", memberGrants}).evaluator(t)
	const ok = `"principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger", "owner": "bob"`
	tests := []struct {
		name  string
		input string
		want  string
	}{
		{"null", `null`, invalidInput},
		{"array", `[]`, invalidInput},
		{"string", `"ledger"`, invalidInput},
		{"empty object", `{}`, invalidInput},
		{"no principal", `{ "pack_id": "ledger", "verb_key": "balance" }`, invalidInput},
		{"principal a string", `{ "principal": "bob", "pack_id": "ledger", "verb_key": "balance" }`, invalidInput},
		{"no principal id", `{ "principal": { "roles": [] }, "pack_id": "ledger", "verb_key": "balance" }`, invalidInput},
		{"empty principal id", `{ "principal": { "id": "" }, "pack_id": "ledger", "verb_key": "balance" }`, invalidInput},
		{"numeric principal id", `{ "principal": { "id": 7 }, "pack_id": "ledger", "verb_key": "balance" }`, invalidInput},
		{"null tenant", `{ "principal": { "id": "bob", "tenant": null }, "pack_id": "ledger", "verb_key": "balance" }`, invalidInput},
		{"roles not strings", `{ "principal": { "id": "bob", "roles": [1] }, "pack_id": "ledger", "verb_key": "balance" }`, invalidInput},
		{"roles a string", `{ "principal": { "id": "bob", "roles": "member" }, "pack_id": "ledger", "verb_key": "balance" }`, invalidInput},
		{"projects not strings", `{ "principal": { "id": "bob", "projects": [null] }, "pack_id": "ledger", "verb_key": "balance" }`, invalidInput},
		{"no pack_id", `{ "principal": { "id": "bob" }, "verb_key": "balance" }`, invalidInput},
		{"empty pack_id", `{ "principal": { "id": "bob" }, "pack_id": "", "verb_key": "balance" }`, invalidInput},
		{"neither key", `{ ` + ok + ` }`, invalidInput},
		{"both keys", `{ ` + ok + `, "verb_key": "balance", "stimulus": "payment_received" }`, invalidInput},
		{"empty verb_key", `{ ` + ok + `, "verb_key": "" }`, invalidInput},
		{"null verb_key", `{ ` + ok + `, "verb_key": null }`, invalidInput},
		{"empty stimulus", `{ ` + ok + `, "stimulus": "" }`, invalidInput},
		{"null stimulus beside verb_key", `{ ` + ok + `, "verb_key": "balance", "stimulus": null }`, invalidInput},
		{"args an array", `{ ` + ok + `, "verb_key": "balance", "args": [] }`, invalidInput},
		{"args null", `{ ` + ok + `, "verb_key": "balance", "args": null }`, invalidInput},
		{"confirm a string", `{ ` + ok + `, "verb_key": "balance", "confirm": "true" }`, invalidInput},
		{"apply null", `{ ` + ok + `, "verb_key": "balance", "apply": null }`, invalidInput},
		{"dry_run a number", `{ ` + ok + `, "verb_key": "balance", "dry_run": 1 }`, invalidInput},
		{"pack_reachable a string", `{ ` + ok + `, "verb_key": "balance", "pack_reachable": "false" }`, invalidInput},
		{"access an array", `{ ` + ok + `, "verb_key": "balance", "access": [] }`, invalidInput},
		{"unknown mode", `{ ` + ok + `, "verb_key": "balance", "access": { "mode": "auto" } }`, invalidInput},
		{"null mode", `{ ` + ok + `, "verb_key": "balance", "access": { "mode": null } }`, invalidInput},
		{"allow an object", `{ ` + ok + `, "verb_key": "balance", "access": { "allow": {} } }`, invalidInput},
		{"allow holds a string", `{ ` + ok + `, "verb_key": "balance", "access": { "allow": ["x"] } }`, invalidInput},
		{"project_id a number", `{ ` + ok + `, "verb_key": "balance", "project_id": 42 }`, invalidInput},
		{"owner null", `{ "principal": { "id": "bob" }, "pack_id": "ledger", "verb_key": "balance", "owner": null }`, invalidInput},
		{"workspace a string", `{ ` + ok + `, "verb_key": "balance", "workspace": "/home" }`, invalidInput},
		{"workspace root a number", `{ ` + ok + `, "verb_key": "balance", "workspace": { "root": 1 } }`, invalidInput},
		{"workspace paths a string", `{ ` + ok + `, "verb_key": "balance", "workspace": { "paths": "/a" } }`, invalidInput},
		{"minimal", `{ ` + ok + `, "verb_key": "balance" }`, allowed},
		{"every optional member", `{ "principal": { "id": "bob", "tenant": "", "roles": ["member"], "projects": [] },
			"pack_id": "ledger", "verb_key": "balance", "args": {}, "confirm": false, "apply": false, "dry_run": false,
			"pack_reachable": true, "access": { "mode": "run", "allow": [{}] }, "project_id": "", "owner": "bob",
			"workspace": { "root": "relative", "paths": [] } }`, allowed},
		{"empty access and workspace", `{ ` + ok + `, "verb_key": "balance", "access": {}, "workspace": {} }`, allowed},
		{"unknown top-level members ignored", `{ ` + ok + `, "verb_key": "balance", "agent": null, "args_": 1 }`, allowed},
		{"unknown principal members ignored", `{ "principal": { "id": "bob", "roles": ["member"], "x": null },
			"pack_id": "ledger", "verb_key": "balance", "owner": "bob" }`, allowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decideCode(t, e, tt.input, Ext{}); got != tt.want {
				t.Errorf("code = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("no input at all", func(t *testing.T) {
		assertJSON(t, e.Decide(nil, Ext{}), `{ "allow": false, "code": "invalid_input", "error": "invalid input", "reasons": ["top level: must be an object"] }`)
	})
	t.Run("not decoded JSON", func(t *testing.T) {
		if got := e.Decide(map[string]any{"principal": struct{}{}}, Ext{})["code"]; got != invalidInput {
			t.Errorf("code = %v, want %q", got, invalidInput)
		}
	})
}

// TestConcurrentDecide decides from many goroutines at once; run with
// -race it shows that an Evaluator is safe for concurrent use.
func TestConcurrentDecide(t *testing.T) {
	e := ledgerFixture([2]string{"member.json", memberGrants}).evaluator(t)
	input := decode(t, `{ "principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger", "verb_key": "transfer",
		"owner": "bob", "args": { "amount": "2" }, "access": { "allow": [{ "pack_id": "ledger", "verb_key": "transfer",
		"limits": { "amount": { "max": 5 } } }] } }`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if got := e.Decide(input, Ext{Confirm: []any{"x"}})["code"]; got != allowed {
					t.Errorf("code = %v, want %q", got, allowed)
					return
				}
			}
		})
	}
	wg.Wait()
}
