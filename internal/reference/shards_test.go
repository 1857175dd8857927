package reference

import (
	"fmt"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
)

// TestShardOf pins the shard function of docs/fleet.md to values computed
// apart from Go (Python's hashlib: int.from_bytes(sha256(t)[:2], "big")
// % n), and holds it to compile.Shard over many tenants: the two are
// written apart on purpose, and a router computes one of them.
func TestShardOf(t *testing.T) {
	pinned := []struct {
		tenant string
		n      int
		want   int
	}{
		{"acme", 4, 3}, {"acme", 3, 2}, {"acme", 4096, 555},
		{"globex", 3, 2}, {"globex", 8, 1},
		{"initech", 4, 0}, {"日本", 4, 2}, {"日本", 4096, 3882},
		{"", 3, 1}, {"", 4096, 944},
	}
	for _, p := range pinned {
		if got := shardOf(p.tenant, p.n); got != p.want {
			t.Errorf("shardOf(%q, %d) = %d, want %d", p.tenant, p.n, got, p.want)
		}
	}
	for i := range 2000 {
		tenant := fmt.Sprintf("tenant-%d-é\x00%c", i, rune(0x4e00+i))
		for _, n := range []int{2, 3, 7, 256, 4096} {
			if got, want := shardOf(tenant, n), compile.Shard(tenant, n); got != want {
				t.Fatalf("shardOf(%q, %d) = %d, compile.Shard says %d", tenant, n, got, want)
			}
		}
	}
}

// tenantGrants give tenant acme (shard 3 of 4, 2 of 3) and tenant initech
// (shard 0 of 4) their own grants, and every principal the ledger's
// balance.
const tenantGrants = `{
  "grants": [
    { "subject": "role:member", "tenant": "acme", "pack_id": "ledger",
      "capabilities": ["verb.exec.read", "verb.exec.write"] },
    { "subject": "principal:ivan", "tenant": "initech", "pack_id": "ledger", "verb_key": "balance",
      "capabilities": ["verb.exec.read"] },
    { "subject": "default", "pack_id": "ledger", "verb_key": "balance", "capabilities": ["verb.exec.read"] }
  ]
}`

// TestTenantUnavailable holds the step of docs/decisions.md#the-chain after pack_unavailable
// for every way a sidecar can hold a tenant's shard: the decision is the
// unsharded one when the shard is loaded from a build of as many shards
// or the principal has no tenant, and tenant_unavailable, naming no
// grant, otherwise.
func TestTenantUnavailable(t *testing.T) {
	all := ledgerFixture([2]string{"tenants.json", tenantGrants}).evaluator(t)
	const (
		acmeMember = `{ "principal": { "id": "bob", "tenant": "acme", "roles": ["member"] }, "pack_id": "ledger", "verb_key": "balance", "owner": "bob" }`
		noTenant   = `{ "principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger", "verb_key": "balance", "owner": "bob" }`
		emptyTen   = `{ "principal": { "id": "bob", "tenant": "", "roles": ["member"] }, "pack_id": "ledger", "verb_key": "balance", "owner": "bob" }`
		ivan       = `{ "principal": { "id": "ivan", "tenant": "initech" }, "pack_id": "ledger", "verb_key": "balance", "owner": "ivan" }`
		unreached  = `{ "principal": { "id": "bob", "tenant": "acme" }, "pack_id": "ledger", "verb_key": "balance", "pack_reachable": false }`
		unknownCmd = `{ "principal": { "id": "bob", "tenant": "acme" }, "pack_id": "ledger", "verb_key": "refund" }`
	)
	unavailable := `{ "allow": false, "code": "tenant_unavailable", "error": "tenant unavailable",
	                  "pack_id": "ledger", "verb_key": "balance",
	                  "operation": "read", "land": "personal", "capability": "verb.exec.read", "confirm": false,
	                  "source": { "row": "packs/ledger/policy.json:5" }, "reasons": [] }`
	tests := []struct {
		name   string
		shards Shards
		input  string
		want   string // "" for the decision of the unsharded evaluator
	}{
		{"unsharded", Shards{}, acmeMember, ""},
		{"no shard loaded", Shards{Of: 4}, acmeMember, unavailable},
		{"its shard loaded", Shards{Of: 4, Loaded: map[int]int{3: 4}}, acmeMember, ""},
		{"another shard loaded", Shards{Of: 4, Loaded: map[int]int{0: 4, 1: 4, 2: 4}}, acmeMember, unavailable},
		{"its index loaded from a build of 3", Shards{Of: 4, Loaded: map[int]int{3: 3}}, acmeMember, unavailable},
		{"its index loaded from a build of 8", Shards{Of: 4, Loaded: map[int]int{3: 8}}, acmeMember, unavailable},
		{"no tenant, no shard", Shards{Of: 4}, noTenant, ""},
		{"an empty tenant, no shard", Shards{Of: 4}, emptyTen, ""},
		{"a default grant does not stand in for a missing shard", Shards{Of: 4, Loaded: map[int]int{1: 4}}, ivan, unavailable},
		{"its own grant once loaded", Shards{Of: 4, Loaded: map[int]int{0: 4}}, ivan, ""},
		{"pack unavailable comes first", Shards{Of: 4}, unreached, ""},
		{"unknown command comes first", Shards{Of: 4}, unknownCmd, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := all.WithShards(tt.shards).Decide(decode(t, tt.input), Ext{})
			want := tt.want
			if want == "" {
				want = canonical(t, all.Decide(decode(t, tt.input), Ext{}))
			}
			assertJSON(t, got, want)
		})
	}
	t.Run("gpars error", func(t *testing.T) {
		got := GPARSError(all.WithShards(Shards{Of: 4}).Decide(decode(t, acmeMember), Ext{}))
		assertJSON(t, got, `{ "code": -32002, "message": "Authorization for this request is not available here.",
		                      "data": { "gpars_code": "SERVER_UNAVAILABLE" } }`)
	})
	t.Run("listing", func(t *testing.T) {
		in := decode(t, `{ "principal": { "id": "bob", "tenant": "acme", "roles": ["member"] }, "pack_id": "ledger", "owner": "bob" }`)
		entries := all.WithShards(Shards{Of: 4}).Permissions(in, Ext{})["verbs"].(map[string]any)
		for key, e := range entries {
			if code := e.(map[string]any)["code"]; code != tenantUnavailable {
				t.Errorf("verbs.%s.code = %v, want %s", key, code, tenantUnavailable)
			}
		}
		if len(entries) == 0 {
			t.Error("the listing has no verbs")
		}
	})
}
