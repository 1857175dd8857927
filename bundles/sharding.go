package bundles

import (
	"slices"
	"strconv"

	"github.com/open-policy-agent/opa/v1/bundle"
)

// Sharding is what a policy, as a sidecar holds it, says of tenant shards
// (docs/fleet.md): the number of shards of its policy bundle's build (0
// for an unsharded build, which holds every tenant's grants), and each
// shard loaded beside it, by index, with the number of shards of the
// build it came from (its marker), which need not be the policy's.
type Sharding struct {
	Of     int
	Loaded []ShardInfo
}

// ShardingOf reads b's sharding from its data: a bundle as built, or a
// policy bundle merged with its shards (Merge). It reads what the
// decision library reads (data.hcp_grants.base.shards and each
// data.hcp_grants.shards[K].shard), so that an explanation names what
// the decision saw.
func ShardingOf(b *bundle.Bundle) Sharding {
	grants, _ := b.Data[GrantsRoot].(map[string]any)
	base, _ := grants[BaseKey].(map[string]any)
	var s Sharding
	s.Of, _ = count(base["shards"])
	shards, _ := grants[ShardsKey].(map[string]any)
	for key, tables := range shards {
		k, err := strconv.Atoi(key)
		if err != nil {
			continue
		}
		t, _ := tables.(map[string]any)
		marker, _ := t["shard"].(map[string]any)
		of, _ := count(marker["of"])
		s.Loaded = append(s.Loaded, ShardInfo{Index: k, Of: of})
	}
	slices.SortFunc(s.Loaded, func(a, b ShardInfo) int { return a.Index - b.Index })
	return s
}

// Holds reports whether shard k of the policy's build is loaded, and
// which build's shard k is loaded (its number of shards; 0 for none).
func (s Sharding) Holds(k int) (loaded bool, of int) {
	for _, l := range s.Loaded {
		if l.Index == k {
			return l.Of == s.Of, l.Of
		}
	}
	return false, 0
}
