package bundletest

import (
	"bytes"
	"maps"

	"github.com/open-policy-agent/opa/v1/bundle"
)

// LegacyLayout returns a copy of b, a bundle as hcp-rego builds it, with
// the grant tables where the bundles built before they left hcp kept them:
// at data.hcp.grants, the roots hcp/authz, hcp_packs and hcp/grants, and a
// decision library that reads data.hcp.grants; the rest as b has it. Tests
// use it to roll a sidecar from tables under hcp to tables beside it and
// back, and to show that the activation check fails on tables under hcp.
func LegacyLayout(b *bundle.Bundle) *bundle.Bundle {
	out := *b
	roots := []string{"hcp/authz", "hcp_packs", "hcp/grants"}
	out.Manifest.Roots = &roots
	hcp := maps.Clone(b.Data["hcp"].(map[string]any))
	hcp["grants"] = b.Data["hcp_grants"]
	out.Data = map[string]any{"hcp": hcp, "hcp_packs": b.Data["hcp_packs"]}
	out.Modules = make([]bundle.ModuleFile, len(b.Modules))
	for i, m := range b.Modules {
		m.Raw = bytes.ReplaceAll(m.Raw, []byte("data.hcp_grants"), []byte("data.hcp.grants"))
		m.Parsed = nil
		out.Modules[i] = m
	}
	return &out
}
