package bundletest

import (
	"bytes"
	"maps"

	"github.com/open-policy-agent/opa/v1/bundle"
)

// LegacyLayout returns a copy of b, a bundle as hcp-rego builds it, in the
// layout of the bundles built before the grant tables left hcp: the tables
// at data.hcp.grants, the roots hcp/authz, hcp/packs and hcp/grants, and a
// decision library that reads data.hcp.grants. Built from the same inputs
// with the same revision, it was byte for byte what the last of those
// versions wrote (checked when the tables moved). Tests use it to roll a sidecar from the old layout to the new and back,
// and to show that the activation check fails on the old layout.
func LegacyLayout(b *bundle.Bundle) *bundle.Bundle {
	out := *b
	roots := []string{"hcp/authz", "hcp/packs", "hcp/grants"}
	out.Manifest.Roots = &roots
	hcp := maps.Clone(b.Data["hcp"].(map[string]any))
	hcp["grants"] = b.Data["hcp_grants"]
	out.Data = map[string]any{"hcp": hcp}
	out.Modules = make([]bundle.ModuleFile, len(b.Modules))
	for i, m := range b.Modules {
		m.Raw = bytes.ReplaceAll(m.Raw, []byte("data.hcp_grants"), []byte("data.hcp.grants"))
		m.Parsed = nil
		out.Modules[i] = m
	}
	return &out
}
