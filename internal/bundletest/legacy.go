package bundletest

import (
	"bytes"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// ListedManifest returns a copy of b, a bundle as hcp-rego builds it, in
// the layout of the bundles built before the list of sources left the
// manifest: metadata.hcp naming every pack and every source file's
// sha256 ({"packs": [id...], "files": {path: sha256}}), and no list at
// data.hcp_grants.sources. Built from the same inputs with the same
// revision, it is byte for byte what the last of those versions wrote
// (checked when the list moved). Tests and the rollout benchmark use it
// to roll a sidecar from that layout to today's.
func ListedManifest(b *bundle.Bundle) *bundle.Bundle {
	out := *b
	tables := maps.Clone(b.Data[bundles.GrantsRoot].(map[string]any))
	files := tables[bundles.SourcesKey]
	delete(tables, bundles.SourcesKey)
	out.Data = maps.Clone(b.Data)
	out.Data[bundles.GrantsRoot] = tables
	var ids []string
	for _, m := range b.Modules {
		if id, ok := packOf(m.Path); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	packs := make([]any, len(ids))
	for i, id := range ids {
		packs[i] = id
	}
	out.Manifest.Metadata = map[string]any{bundles.MetadataKey: map[string]any{"packs": packs, "files": files}}
	return &out
}

// packOf is the id of the pack whose module is at path
// (/hcp/packs/<id>/pack.rego).
func packOf(p string) (string, bool) {
	dir, file := path.Split(strings.TrimPrefix(p, "/hcp/packs/"))
	if file != "pack.rego" || dir == "" || !strings.HasPrefix(p, "/hcp/packs/") {
		return "", false
	}
	return strings.TrimSuffix(dir, "/"), true
}

// LegacyLayout returns a copy of b, a bundle as hcp-rego builds it, in the
// layout of the bundles built before the grant tables left hcp: the tables
// at data.hcp.grants, the roots hcp/authz, hcp/packs and hcp/grants, a
// decision library that reads data.hcp.grants, and the manifest listing
// the sources (ListedManifest). Built from the same inputs with the same
// revision, it was byte for byte what the last of those versions wrote
// (checked when the tables moved). Tests use it to roll a sidecar from
// the old layout to the new and back, and to show that the activation
// check fails on the old layout.
func LegacyLayout(b *bundle.Bundle) *bundle.Bundle {
	out := *ListedManifest(b)
	roots := []string{"hcp/authz", "hcp/packs", "hcp/grants"}
	out.Manifest.Roots = &roots
	hcp := maps.Clone(out.Data["hcp"].(map[string]any))
	hcp["grants"] = out.Data[bundles.GrantsRoot]
	out.Data = map[string]any{"hcp": hcp}
	out.Modules = make([]bundle.ModuleFile, len(b.Modules))
	for i, m := range b.Modules {
		m.Raw = bytes.ReplaceAll(m.Raw, []byte("data.hcp_grants"), []byte("data.hcp.grants"))
		m.Parsed = nil
		out.Modules[i] = m
	}
	return &out
}
