package bundletest

import (
	"bytes"
	"maps"
	"slices"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// ListedManifest returns a copy of b, a bundle as hcp-rego builds it, with
// the manifest of the bundles built before the list of sources left it:
// metadata.hcp naming every pack and every source file's sha256
// ({"packs": [id...], "files": {path: sha256}}), and no list at
// data.hcp_grants.base.sources; the rest as b has it. Tests and the rollout
// benchmark use it to roll a sidecar from that manifest to today's.
func ListedManifest(b *bundle.Bundle) *bundle.Bundle {
	out := *b
	root := maps.Clone(b.Data[bundles.GrantsRoot].(map[string]any))
	tables := maps.Clone(root[bundles.BaseKey].(map[string]any))
	files := tables[bundles.SourcesKey]
	delete(tables, bundles.SourcesKey)
	root[bundles.BaseKey] = tables
	out.Data = maps.Clone(b.Data)
	out.Data[bundles.GrantsRoot] = root
	rows, _ := b.Data[bundles.PacksRoot].(map[string]any)
	packs := []any{}
	for _, id := range slices.Sorted(maps.Keys(rows)) {
		packs = append(packs, id)
	}
	out.Manifest.Metadata = map[string]any{bundles.MetadataKey: map[string]any{"packs": packs, "files": files}}
	return &out
}

// LegacyLayout returns a copy of b, a bundle as hcp-rego builds it, with
// the grant tables where the bundles built before they left hcp kept them:
// at data.hcp.grants, the roots hcp/authz, hcp_packs and hcp/grants, a
// decision library that reads data.hcp.grants, and the manifest listing
// the sources (ListedManifest); the rest as b has it. Tests use it to roll
// a sidecar from tables under hcp to tables beside it and back, and to
// show that the activation check fails on tables under hcp.
func LegacyLayout(b *bundle.Bundle) *bundle.Bundle {
	out := *ListedManifest(b)
	roots := []string{"hcp/authz", bundles.PacksRoot, "hcp/grants"}
	out.Manifest.Roots = &roots
	hcp := maps.Clone(out.Data["hcp"].(map[string]any))
	hcp["grants"] = out.Data[bundles.GrantsRoot]
	out.Data = map[string]any{"hcp": hcp, bundles.PacksRoot: out.Data[bundles.PacksRoot]}
	out.Modules = make([]bundle.ModuleFile, len(b.Modules))
	for i, m := range b.Modules {
		m.Raw = bytes.ReplaceAll(m.Raw, []byte("data.hcp_grants"), []byte("data.hcp.grants"))
		m.Parsed = nil
		out.Modules[i] = m
	}
	return &out
}
