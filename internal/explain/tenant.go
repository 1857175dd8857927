package explain

import (
	"fmt"
	"strings"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
)

// describeTenant says what the tenant step saw (docs/fleet.md): whether the
// grants of the principal's tenant are loaded here, and, in a sharded
// build, its tenant's shard and the shards loaded, so that an operator
// learns which cell the tenant belongs in.
func describeTenant(failed bool, sh bundles.Sharding, c call) []string {
	tenant, _ := str(c.principal, "tenant")
	switch {
	case failed && sh.Of == 0:
		// The decision said so, but this policy's sharding is not known
		// here: say what the step means.
		return []string{fmt.Sprintf("the grants of tenant %q are not loaded here: its shard is missing", tenant)}
	case sh.Of == 0:
		return []string{"the build is not sharded: every tenant's grants are here"}
	case tenant == "":
		return []string{"the principal has no tenant: its grants are in the policy bundle"}
	}
	k := compile.Shard(tenant, sh.Of)
	loaded, of := sh.Holds(k)
	switch {
	case !failed && loaded:
		return []string{fmt.Sprintf("tenant %q is in shard %d of %d, loaded here", tenant, k, sh.Of)}
	case of != 0 && of != sh.Of:
		return []string{fmt.Sprintf("tenant %q is in shard %d of %d; the shard %d loaded here is of a build of %d shards, not this policy's", tenant, k, sh.Of, k, of),
			"loaded here: " + loadedText(sh)}
	}
	return []string{fmt.Sprintf("tenant %q is in shard %d of %d, which is not loaded here", tenant, k, sh.Of),
		"loaded here: " + loadedText(sh)}
}

// loadedText lists the shards loaded, each K/N ("shard K of a build of N").
func loadedText(sh bundles.Sharding) string {
	if len(sh.Loaded) == 0 {
		return "no shard"
	}
	parts := make([]string, len(sh.Loaded))
	for i, l := range sh.Loaded {
		parts[i] = fmt.Sprintf("%d/%d", l.Index, l.Of)
	}
	return "shards " + strings.Join(parts, ", ") + " (K/N: shard K of a build of N)"
}
