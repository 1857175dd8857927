package integration

import (
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/bundletest"
)

// TestSidecarUpgradesLayoutInPlace rolls a polling sidecar, beside the
// runtime bundle, from a bundle of the layout built before the grant
// tables left hcp (data.hcp.grants) to one of today's (data.hcp_grants)
// and back, with no restart: each revision activates with no error, and
// on each the sidecar's answers over the corpus equal the embedded
// evaluator's and the Go reference's.
func TestSidecarUpgradesLayoutInPlace(t *testing.T) {
	t.Parallel()
	m := exampleModel(t, acme, defaults)
	hub := newBundleServer(t)
	hub.set("/bundles/ext.tar.gz", extTarball(t))
	revisions := []struct {
		name   string
		legacy bool
	}{{"old-layout-1", true}, {"new-layout", false}, {"old-layout-2", true}}
	var s *server
	for _, r := range revisions {
		tarball := layoutBundle(t, m, r.name, r.legacy)
		hub.set("/bundles/hcp.tar.gz", readFile(t, tarball))
		if s == nil {
			s = startOPA(t, "--config-file", sidecarConfig(t, hub.URL, []string{"hcp", "ext"}, nil))
		}
		s.waitFor(t, "revision "+r.name, pollTimeout, func() bool { return s.revision(t, "hcp") == r.name })
		roots := s.get(t, "system/bundles/hcp/manifest/roots")
		t.Logf("%s active, roots %v", r.name, roots)
		checkCorpus(t, s, newDeciders(t, tarball))
	}
	for _, line := range strings.Split(s.logs.String(), "\n") {
		if strings.Contains(line, `"level":"error"`) {
			t.Errorf("the sidecar logged an error while replacing revisions: %s", line)
		}
	}
}

// layoutBundle builds m's bundle with revision into a file, in the old
// layout when legacy is set.
func layoutBundle(t *testing.T, m *compile.Model, revision string, legacy bool) string {
	t.Helper()
	b, err := compile.Compile(m, revision)
	if err != nil {
		t.Fatal(err)
	}
	if legacy {
		b = bundletest.LegacyLayout(b)
	}
	data, err := bundles.Build(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "hcp.tar.gz", data)
}
