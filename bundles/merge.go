package bundles

import (
	"maps"

	"github.com/open-policy-agent/opa/v1/bundle"
)

// Merge is what a sidecar holds when it loads policy and shards beside
// it, as one bundle for the embedded evaluator: the policy bundle's
// modules and manifest, its roots joined by the shards', and every
// shard's tables beside the policy bundle's at hcp_grants.shards. The
// bundles must be apart (CheckApart), as a sidecar requires; neither
// policy nor a shard is changed.
func Merge(policy *bundle.Bundle, shards []*bundle.Bundle) *bundle.Bundle {
	if len(shards) == 0 {
		return policy
	}
	merged := *policy
	roots := []string{}
	if policy.Manifest.Roots != nil {
		roots = append(roots, *policy.Manifest.Roots...)
	}
	merged.Data = maps.Clone(policy.Data)
	grants, _ := merged.Data[GrantsRoot].(map[string]any)
	grants = maps.Clone(grants)
	if grants == nil {
		grants = map[string]any{}
	}
	all := map[string]any{}
	for _, s := range shards {
		roots = append(roots, *s.Manifest.Roots...)
		from, _ := s.Data[GrantsRoot].(map[string]any)
		each, _ := from[ShardsKey].(map[string]any)
		maps.Copy(all, each)
	}
	grants[ShardsKey] = all
	merged.Data[GrantsRoot] = grants
	merged.Manifest.Roots = &roots
	return &merged
}
