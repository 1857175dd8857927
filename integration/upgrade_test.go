package integration

import (
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/bundletest"
)

// TestSidecarUpgradesLayoutInPlace rolls a polling sidecar, beside the
// runtime bundle, from a bundle of the layout built before the grant
// tables left hcp (data.hcp.grants) to one of today's (data.hcp_grants),
// to one built before the list of sources left the manifest, to today's
// again and back, with no restart: each revision activates with no
// error, and on each the sidecar's answers over the corpus equal the
// embedded evaluator's and the Go reference's.
func TestSidecarUpgradesLayoutInPlace(t *testing.T) {
	t.Parallel()
	m := exampleModel(t, acme, defaults)
	hub := newBundleServer(t)
	hub.set("/bundles/ext.tar.gz", extTarball(t))
	revisions := []struct {
		name   string
		layout func(*bundle.Bundle) *bundle.Bundle // nil: as built
	}{
		{"old-layout-1", bundletest.LegacyLayout},
		{"new-layout-1", nil},
		{"listed-manifest", bundletest.ListedManifest},
		{"new-layout-2", nil},
		{"old-layout-2", bundletest.LegacyLayout},
	}
	var s *server
	for _, r := range revisions {
		tarball := layoutBundle(t, m, r.name, r.layout)
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
		if _, listed := meta["files"]; listed != (r.layout != nil) || (meta["sources_sha256"] == nil) != (r.layout != nil) {
			t.Errorf("%s active, metadata.hcp %v", r.name, meta)
		}
		checkCorpus(t, s, newDeciders(t, tarball))
	}
	for _, line := range strings.Split(s.logs.String(), "\n") {
		if strings.Contains(line, `"level":"error"`) {
			t.Errorf("the sidecar logged an error while replacing revisions: %s", line)
		}
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
