package bundles

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// A sharded build's shard (docs/fleet.md) is a bundle of data alone: the
// grant tables of the tenants whose shard is K, at its one root
// hcp_grants/shards/K (ShardRoot), with a marker beside them
// (hcp_grants.shards[K].shard: index K, of N) that the decision library
// compares with the policy bundle's number of shards, and the same two
// numbers in the manifest's metadata.hcp (shard, of), which a reader can
// see without the data.

// ShardInfo is which shard a bundle is, and of how many.
type ShardInfo struct{ Index, Of int }

// isShardRoots reports whether b's manifest names one root, a shard's.
func isShardRoots(b *bundle.Bundle) bool {
	_, ok := shardIndex(b)
	return ok
}

// shardIndex is the K of a manifest whose one root is ShardRoot(K).
func shardIndex(b *bundle.Bundle) (int, bool) {
	if b.Manifest.Roots == nil || len(*b.Manifest.Roots) != 1 {
		return 0, false
	}
	rest, ok := strings.CutPrefix((*b.Manifest.Roots)[0], GrantsRoot+"/"+ShardsKey+"/")
	if !ok {
		return 0, false
	}
	k, err := strconv.Atoi(rest)
	if err != nil || k < 0 || k >= MaxShards || strconv.Itoa(k) != rest {
		return 0, false
	}
	return k, true
}

// Shard is which shard b is, when it is a shard (its one root a shard's
// and no modules).
func Shard(b *bundle.Bundle) (ShardInfo, bool) {
	k, ok := shardIndex(b)
	if !ok || len(b.Modules) > 0 {
		return ShardInfo{}, false
	}
	meta, _ := b.Manifest.Metadata[MetadataKey].(map[string]any)
	of, _ := count(meta["of"])
	return ShardInfo{Index: k, Of: of}, true
}

// checkShard refuses a shard whose manifest, marker and data disagree: a
// shard's data holds nothing but its tables, under its root, and its
// marker names its root's K and the manifest's N, from 2 to MaxShards.
func checkShard(name string, b *bundle.Bundle) error {
	info, _ := Shard(b)
	meta, _ := b.Manifest.Metadata[MetadataKey].(map[string]any)
	k, kOK := count(meta["shard"])
	var problems []string
	if !kOK || k != info.Index || info.Of < 2 || info.Of > MaxShards || info.Index >= info.Of {
		problems = append(problems, fmt.Sprintf(".manifest's metadata.hcp does not name shard %d of 2 to %d shards", info.Index, MaxShards))
	}
	tables, ok := shardTablesOf(b.Data, info.Index)
	if !ok {
		problems = append(problems, fmt.Sprintf("its data holds more than the tables at data.%s.%s[%q]", GrantsRoot, ShardsKey, strconv.Itoa(info.Index)))
	}
	marker, _ := tables["shard"].(map[string]any)
	if i, ok := count(marker["index"]); !ok || i != info.Index {
		problems = append(problems, "its marker (shard.index) does not name its root's shard")
	}
	if n, ok := count(marker["of"]); !ok || n != info.Of {
		problems = append(problems, "its marker (shard.of) does not name the manifest's number of shards")
	}
	if len(problems) == 0 {
		return nil
	}
	var errs problem.Errors
	errs.Add(name, problem.Pos{}, "bundle refused: not a shard as hcp-rego builds one: %s", strings.Join(problems, "; "))
	return errs.Err()
}

// shardTablesOf is shard k's tables in data, and whether data holds them
// and nothing else.
func shardTablesOf(data map[string]any, k int) (map[string]any, bool) {
	root, _ := data[GrantsRoot].(map[string]any)
	shards, _ := root[ShardsKey].(map[string]any)
	tables, ok := shards[strconv.Itoa(k)].(map[string]any)
	return tables, ok && len(data) == 1 && len(root) == 1 && len(shards) == 1
}

// count is v, a whole number as OPA's reader decodes it (json.Number) or
// as Go holds it (int, from a bundle built here), and whether it is one.
func count(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case json.Number:
		i, err := strconv.Atoi(string(n))
		return i, err == nil
	}
	return 0, false
}

// PolicyShards is the number of shards of a sharded build's policy
// bundle b (data.hcp_grants.base.shards, which the decision library
// compares with each shard's marker), and whether b is one: its roots
// PolicyRoots and that number from 2 to MaxShards.
func PolicyShards(b *bundle.Bundle) (int, bool) {
	if b.Manifest.Roots == nil || !slices.Equal(slices.Sorted(slices.Values(*b.Manifest.Roots)), slices.Sorted(slices.Values(PolicyRoots()))) {
		return 0, false
	}
	root, _ := b.Data[GrantsRoot].(map[string]any)
	base, _ := root[BaseKey].(map[string]any)
	n, ok := count(base[ShardsKey])
	return n, ok && n >= 2 && n <= MaxShards
}
