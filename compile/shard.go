package compile

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// Shard is the shard of tenant in a build of n shards (docs/fleet.md):
// the first two bytes of the sha256 of the tenant id's UTF-8 bytes, read
// as a big-endian unsigned number, modulo n. The decision library looks
// the same up in the policy bundle's table of it (shardOfTable: the
// shard of each of the 65,536 values of those two bytes, one lookup a
// decision where arithmetic on them cost four times as much), and
// `hcp-rego shard`
// prints it, so that a router sends a tenant's calls to a cell holding
// its shard. n must be at least 1.
func Shard(tenant string, n int) int {
	sum := sha256.Sum256([]byte(tenant))
	return int(binary.BigEndian.Uint16(sum[:2])) % n
}

// tenantless are the grants without a tenant, which hold for every
// tenant: a sharded build's policy bundle holds them.
func tenantless(grants []*Grant) []*Grant {
	var out []*Grant
	for _, g := range grants {
		if g.Tenant == "" {
			out = append(out, g)
		}
	}
	return out
}

// shardGrants are the grants with a tenant, by the shard of their tenant
// among n.
func shardGrants(grants []*Grant, n int) [][]*Grant {
	shards := make([][]*Grant, n)
	of := map[string]int{} // a tenant's shard, hashed once
	for _, g := range grants {
		if g.Tenant == "" {
			continue
		}
		k, seen := of[g.Tenant]
		if !seen {
			k = Shard(g.Tenant, n)
			of[g.Tenant] = k
		}
		shards[k] = append(shards[k], g)
	}
	return shards
}

// shardTables are the tables of shard k of n, which holds grants: the
// tables of tablesOf, applies always among them, and the shard's marker
// (shard.index, shard.of), which the library compares with the policy
// bundle's number of shards. applies is there whether or not a default
// grant reads it now: a sidecar polls each bundle on its own, and a
// policy bundle that gains a default grant beside a shard built without
// applies would let that grant hold for the shard's principals whom a
// grant of their own names, which neither build allows.
func shardTables(m *Model, grants []*Grant, k, n int) map[string]any {
	tables := tablesOf(m, grants, true)
	tables["shard"] = map[string]any{"index": k, "of": n}
	return tables
}

// shardBundle is the bundle of shard k of n, with its data's JSON for
// encoded.Build. Its revision is derived from its contents: the
// same grants give the same revision and bytes.
func shardBundle(tables map[string]any, k int) (*bundle.Bundle, map[string]any, error) {
	encoded, err := json.Marshal(tables)
	if err != nil {
		return nil, nil, fmt.Errorf("encode shard %d: %w", k, err)
	}
	sum := sha256.Sum256(encoded)
	roots := []string{bundles.ShardRoot(k)}
	version := 1
	b := &bundle.Bundle{
		Manifest: bundle.Manifest{
			Revision:    hex.EncodeToString(sum[:])[:16],
			Roots:       &roots,
			RegoVersion: &version,
			Metadata:    map[string]any{bundles.MetadataKey: map[string]any{"shard": k, "of": tables["shard"].(map[string]any)["of"]}},
		},
		Data: shardData(k, tables),
	}
	return b, shardData(k, json.RawMessage(encoded)), nil
}

// shardData is shard k's bundle's data: its tables at
// hcp_grants.shards[k].
func shardData(k int, tables any) map[string]any {
	return map[string]any{bundles.GrantsRoot: map[string]any{bundles.ShardsKey: map[string]any{fmt.Sprint(k): tables}}}
}

// shardOfTable is the policy bundle's shard_of: every four hex digits
// to the shard, among n, of a tenant whose sha256 begins with them, as
// the text of its key under hcp_grants.shards.
func shardOfTable(n int) map[string]any {
	t := make(map[string]any, 1<<16)
	for v := range 1 << 16 {
		t[fmt.Sprintf("%04x", v)] = strconv.Itoa(v % n)
	}
	return t
}
