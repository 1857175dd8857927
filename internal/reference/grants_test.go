package reference

import (
	"fmt"
	"testing"
)

const mailManifest = `{
  "id": "mail",
  "commands": { "mail.list": { "cli": ["mail", "list"] } },
  "stimulusTriggers": [ "new_item" ]
}`

const mailPolicy = `{
  "surface_id": "mail",
  "verbs": { "mail.list": { "operation": "read", "privacy": { "land": "personal" } } },
  "stimuli": { "new_item": { "operation": "read", "privacy": { "land": "personal" } } }
}`

// namedGrants and defaultGrants are two grant files; the line of each
// grant is in its comment in grantCases.
const namedGrants = `{
  "grants": [
    { "subject": "principal:alice", "pack_id": "ledger", "verb_key": "transfer", "capabilities": ["verb.exec.write"] },
    { "subject": "role:member", "tenant": "acme", "pack_id": "ledger", "capabilities": ["verb.exec.read"] },
    { "subject": "role:member", "pack_id": "ledger", "verb_key": "balance", "capabilities": ["verb.exec.read"] },
    { "subject": "role:auditor", "pack_id": "mail", "capabilities": ["verb.exec.read"] },
    { "subject": "role:watcher", "pack_id": "ledger", "stimulus": "payment_received", "capabilities": ["sense.enable"] },
    { "subject": "role:clerk", "pack_id": "ledger", "verb_key": "transfer", "capabilities": ["verb.exec.read"] },
    { "subject": "role:writer", "pack_id": "ledger", "capabilities": ["verb.exec.write"] },
    { "subject": "role:x", "tenant": "globex", "pack_id": "mail", "capabilities": ["verb.exec.read"] },
    { "subject": "role:sensor", "pack_id": "ledger", "capabilities": ["sense.enable"] },
    { "subject": "role:odd", "pack_id": "ledger", "verb_key": "payment_received", "capabilities": ["sense.enable"] },
    { "subject": "role:odd", "pack_id": "ledger", "stimulus": "balance", "capabilities": ["verb.exec.read"] }
  ]
}`

const defaultGrants = `{
  "grants": [
    { "subject": "default", "pack_id": "ledger", "verb_key": "balance", "capabilities": ["verb.exec.read"] },
    { "subject": "default", "tenant": "acme", "pack_id": "ledger", "capabilities": ["verb.exec.write"] },
    { "subject": "role:member", "pack_id": "ledger", "capabilities": ["verb.exec.read"] }
  ]
}`

// grantCall builds an input for principal id, with more members p, calling
// key (a verb unless stimulus), with every land fact satisfied, confirmed.
func grantCall(id, p, key string, stimulus bool) string {
	field := "verb_key"
	if stimulus {
		field = "stimulus"
	}
	return fmt.Sprintf(`{ "principal": { "id": %q, "projects": ["p"], %s }, "pack_id": "ledger", %q: %q,
		"owner": %q, "project_id": "p", "workspace": { "root": "/w" }, "confirm": true }`, id, p, field, key, id)
}

// TestGrants checks who holds which capability and which grant gave it
// (docs/decisions.md: capability, items 3 and 4).
func TestGrants(t *testing.T) {
	f := fixture{
		packs: map[string][2]string{
			"ledger": {ledgerManifest, ledgerPolicy},
			"mail":   {mailManifest, mailPolicy},
		},
		grants: [][2]string{{"a.json", namedGrants}, {"b.json", defaultGrants}},
	}
	e := f.evaluator(t)
	tests := []struct {
		name      string
		id        string
		principal string
		key       string
		stimulus  bool
		grant     string // "" when the capability is not held
	}{
		{"a principal grant is a named grant: no default", "alice", `"tenant": "t"`, "balance", false, ""},
		{"principal grant", "alice", `"roles": ["r"]`, "transfer", false, "grants/a.json:3"},
		{"principal grant names one id", "bob", `"roles": ["r"]`, "transfer", false, ""},
		{"a principal named like a role", "member", `"roles": []`, "balance", false, "grants/b.json:3"},
		{"no named grant: default verb grant", "u", `"roles": []`, "balance", false, "grants/b.json:3"},
		{"default of the principal's tenant", "u", `"tenant": "acme"`, "transfer", false, "grants/b.json:4"},
		{"default of another tenant", "u", `"tenant": "globex"`, "transfer", false, ""},
		{"tenant default without a tenant", "u", `"roles": []`, "transfer", false, ""},
		{"named grant in another pack blocks defaults", "u", `"roles": ["auditor"]`, "balance", false, ""},
		{"other tenant's named grant does not block defaults", "u", `"roles": ["x"], "tenant": "acme"`, "balance", false, "grants/b.json:3"},
		{"own tenant's named grant blocks defaults", "u", `"roles": ["x"], "tenant": "globex"`, "balance", false, ""},
		{"tenant grant first in file order", "u", `"roles": ["member"], "tenant": "acme"`, "balance", false, "grants/a.json:4"},
		{"verb grant without the tenant", "u", `"roles": ["member"]`, "balance", false, "grants/a.json:5"},
		{"second file's grant when the first's do not apply", "u", `"roles": ["member"], "tenant": "globex"`, "report", false, "grants/b.json:5"},
		{"pack-wide grant covers every verb", "u", `"roles": ["member"], "tenant": "acme"`, "report", false, "grants/a.json:4"},
		{"stimulus grant", "u", `"roles": ["watcher"]`, "payment_received", true, "grants/a.json:7"},
		{"stimulus grant covers only its trigger", "u", `"roles": ["watcher"]`, "file_changed", true, ""},
		{"stimulus grant gives no verb", "u", `"roles": ["watcher"]`, "balance", false, ""},
		{"read does not give write", "u", `"roles": ["clerk"]`, "transfer", false, ""},
		{"write does not give read", "u", `"roles": ["writer"]`, "balance", false, ""},
		{"pack-wide write", "u", `"roles": ["writer"]`, "transfer", false, "grants/a.json:9"},
		{"write does not give connect", "u", `"roles": ["writer"]`, "connect", false, ""},
		{"write does not give sense", "u", `"roles": ["writer"]`, "payment_received", true, ""},
		{"pack-wide sense covers every trigger", "u", `"roles": ["sensor"]`, "file_changed", true, "grants/a.json:11"},
		{"verb_key grant does not cover a trigger of that key", "u", `"roles": ["odd"]`, "payment_received", true, ""},
		{"stimulus grant does not cover a verb of that key", "u", `"roles": ["odd"]`, "balance", false, ""},
		{"several roles: lowest position", "u", `"roles": ["watcher", "sensor"]`, "payment_received", true, "grants/a.json:7"},
		{"a role named like a principal", "u", `"roles": ["alice"]`, "transfer", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := decode(t, grantCall(tt.id, tt.principal, tt.key, tt.stimulus))
			assertGrant(t, e.Decide(input, Ext{}), tt.grant)
		})
	}
}

// assertGrant checks the decision's code and source.grant against the
// grant that should have given the capability.
func assertGrant(t *testing.T, d map[string]any, grant string) {
	t.Helper()
	wantCode := allowed
	if grant == "" {
		wantCode = capabilityRequired
	}
	got, _ := d["source"].(map[string]any)["grant"].(string)
	if d["code"] != wantCode || got != grant {
		t.Errorf("code %v, grant %q; want %s, %q (decision %s)", d["code"], got, wantCode, grant, canonical(t, d))
	}
}

// TestGrantFileOrder checks that "first" counts files in the order given.
func TestGrantFileOrder(t *testing.T) {
	f := ledgerFixture([2]string{"b.json", defaultGrants}, [2]string{"a.json", namedGrants})
	e := f.evaluator(t)
	d := e.Decide(decode(t, grantCall("u", `"roles": ["member"], "tenant": "acme"`, "balance", false)), Ext{})
	assertGrant(t, d, "grants/b.json:5")
}

// TestIdentityOnlyFromPrincipal checks that nothing but principal changes
// who the caller is or which tenant applies
// (docs/files.md#the-decision-input).
func TestIdentityOnlyFromPrincipal(t *testing.T) {
	e := ledgerFixture([2]string{"b.json", defaultGrants}).evaluator(t)
	input := `{ "principal": { "id": "u" }, "pack_id": "ledger", "verb_key": "transfer", "owner": "u", "confirm": true,
		"tenant": "acme", "agent": { "tenant": "acme" }, "args": { "tenant": "acme", "entity": "acme", "workspace": "acme" } }`
	if got := decideCode(t, e, input, Ext{}); got != capabilityRequired {
		t.Errorf("code = %q, want %q", got, capabilityRequired)
	}
}

// TestNoGrants checks a model without grant files: nobody holds anything.
func TestNoGrants(t *testing.T) {
	e := ledgerFixture().evaluator(t)
	if got := decideCode(t, e, grantCall("u", `"roles": ["member"]`, "balance", false), Ext{}); got != capabilityRequired {
		t.Errorf("code = %q, want %q", got, capabilityRequired)
	}
}
