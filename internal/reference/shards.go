package reference

import "crypto/sha256"

// Shards says which grants a sidecar holds of a sharded build (docs/fleet.md):
// the policy bundle's number of shards, and the shards loaded beside it.
// The zero value is an unsharded policy, which holds every tenant's grants.
type Shards struct {
	// Of is the number of shards of the policy bundle's build; 0 for an
	// unsharded build.
	Of int
	// Loaded maps the index K of each shard loaded beside the policy
	// bundle to the number of shards of the build it came from, which
	// need not be Of: a sidecar may be given a shard of another build.
	Loaded map[int]int
}

// WithShards returns an evaluator of the same packs and grants that
// decides as a sidecar holding s does: a principal whose tenant's shard
// is not among s.Loaded, or is loaded from a build of another number of
// shards, is denied tenant_unavailable; every other decision is the one
// the evaluator makes holding every grant. That is all the reference
// models of sharding, from docs/fleet.md: which grants a shard holds
// is the build's business, and a decision that passes the tenant step is
// held by the differential tests to the unsharded one.
func (e *Evaluator) WithShards(s Shards) *Evaluator {
	c := *e
	c.shards = s
	return &c
}

// holds reports whether the grants of p's tenant are loaded: always in an
// unsharded build and for a principal without a tenant (or with an empty
// one, which names none), otherwise when the tenant's shard is loaded
// from a build of as many shards as the policy bundle's.
func (s Shards) holds(p principal) bool {
	if s.Of == 0 || !p.tenant.given || p.tenant.value == "" {
		return true
	}
	of, loaded := s.Loaded[shardOf(p.tenant.value, s.Of)]
	return loaded && of == s.Of
}

// shardOf is the shard of tenant among n, as docs/fleet.md
// define it for a router: the first 16 bits of the sha256 of the tenant
// id's UTF-8 bytes, as an unsigned big-endian number, modulo n. It is
// written here apart from compile.Shard and the library's _shard_key, so
// that a slip in either shows as a disagreement in the differential
// tests rather than being shared.
func shardOf(tenant string, n int) int {
	sum := sha256.Sum256([]byte(tenant))
	var first uint64
	for _, b := range sum[:2] {
		first = first<<8 | uint64(b)
	}
	return int(first % uint64(n))
}
