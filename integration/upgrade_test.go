package integration

import (
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/bundletest"
)

// modulesLayout is the example set (../testdata/packs, acme.json and
// defaults.json) as hcp-rego built it before 2026-12, revision
// "modules-layout": one generated module a pack at hcp.packs.<id> with its
// rows as packed strings, the grant tables nested by subject, and the
// library of then. Sidecars in the field run bundles of that layout.
const modulesLayout = "../testdata/upgrade/modules-layout.tar.gz"

// TestSidecarUpgradesLayoutInPlace rolls a polling sidecar, beside the
// runtime bundle, from a bundle of the layout built before 2026-12 (pack
// modules, nested grant tables and a manifest listing every source file:
// modulesLayout) to one of today's (rows at hcp_packs, flat tables, the
// sources listed at hcp_grants.base.sources), to one whose manifest lists the
// sources, to one with the grant tables under hcp as they were before they
// left it (data.hcp.grants), to today's again and back to the modules,
// with no restart: each revision activates with no error, and on each the
// sidecar's answers over the corpus equal the embedded evaluator's and the
// Go reference's.
func TestSidecarUpgradesLayoutInPlace(t *testing.T) {
	t.Parallel()
	m := exampleModel(t, acme, defaults)
	hub := newBundleServer(t)
	hub.set("/bundles/ext.tar.gz", extTarball(t))
	revisions := []struct {
		name   string
		layout func(*bundle.Bundle) *bundle.Bundle // nil: as built
		listed bool                                // the manifest lists the sources
	}{
		{"modules-layout", nil, true},
		{"new-layout-1", nil, false},
		{"listed-manifest", bundletest.ListedManifest, true},
		{"new-layout-2", nil, false},
		{"old-layout", bundletest.LegacyLayout, true},
		{"new-layout-3", nil, false},
		{"modules-layout", nil, true},
	}
	var s *server
	for _, r := range revisions {
		tarball := modulesLayout
		if r.name != "modules-layout" {
			tarball = layoutBundle(t, m, r.name, r.layout)
		}
		hub.set("/bundles/hcp.tar.gz", readFile(t, tarball))
		if s == nil {
			s = startOPA(t, "--config-file", sidecarConfig(t, hub.URL, []string{"hcp", "ext"}, nil))
		}
		s.waitFor(t, "revision "+r.name, pollTimeout, func() bool { return s.revision(t, "hcp") == r.name })
		roots := s.get(t, "system/bundles/hcp/manifest/roots")
		t.Logf("%s active, roots %v", r.name, roots)
		// The manifest a sidecar reads on every request lists no file
		// once a bundle of today's is active.
		meta, _ := s.get(t, "system/bundles/hcp/manifest/metadata/hcp").(map[string]any)
		if _, listed := meta["files"]; listed != r.listed || (meta["sources_sha256"] == nil) != r.listed {
			t.Errorf("%s active, metadata.hcp %v", r.name, meta)
		}
		var then func(map[string]any)
		if r.name == "modules-layout" {
			then = before202612
		}
		checkCorpusAs(t, s, newDeciders(t, tarball), then)
	}
	for _, line := range strings.Split(s.logs.String(), "\n") {
		if strings.Contains(line, `"level":"error"`) {
			t.Errorf("the sidecar logged an error while replacing revisions: %s", line)
		}
	}
}

// before202612 is a decision as the library of modulesLayout made it: an
// invalid_input named no reason then.
func before202612(d map[string]any) {
	if d["code"] == "invalid_input" {
		d["reasons"] = []any{}
	}
}

// layoutBundle builds m's bundle with revision into a file, in the
// layout that layout gives it, if any.
func layoutBundle(t *testing.T, m *compile.Model, revision string, layout func(*bundle.Bundle) *bundle.Bundle) string {
	t.Helper()
	b, err := compile.Compile(m, revision)
	if err != nil {
		t.Fatal(err)
	}
	if layout != nil {
		b = layout(b)
	}
	data, err := bundles.Build(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "hcp.tar.gz", data)
}
