package integration

import (
	"strings"
	"testing"

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
// modules, modulesLayout) to one of today's (rows at hcp_packs), to one
// with the grant tables under hcp as they were before they left it
// (data.hcp.grants), to today's again and back to the modules, with no
// restart: each revision activates with no error, and on each the
// sidecar's answers over the corpus equal the embedded evaluator's and the
// Go reference's.
func TestSidecarUpgradesLayoutInPlace(t *testing.T) {
	t.Parallel()
	m := exampleModel(t, acme, defaults)
	hub := newBundleServer(t)
	hub.set("/bundles/ext.tar.gz", extTarball(t))
	revisions := []struct {
		name   string
		legacy bool
	}{{"modules-layout", false}, {"new-layout-1", false}, {"old-layout", true}, {"new-layout-2", false}, {"modules-layout", false}}
	var s *server
	for _, r := range revisions {
		tarball := modulesLayout
		if r.name != "modules-layout" {
			tarball = layoutBundle(t, m, r.name, r.legacy)
		}
		hub.set("/bundles/hcp.tar.gz", readFile(t, tarball))
		if s == nil {
			s = startOPA(t, "--config-file", sidecarConfig(t, hub.URL, []string{"hcp", "ext"}, nil))
		}
		s.waitFor(t, "revision "+r.name, pollTimeout, func() bool { return s.revision(t, "hcp") == r.name })
		roots := s.get(t, "system/bundles/hcp/manifest/roots")
		t.Logf("%s active, roots %v", r.name, roots)
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
