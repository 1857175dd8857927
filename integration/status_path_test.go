package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatusBundleNamedByPath asks two real OPAs started with `opa run
// --server --bundle cal.tar.gz`, which name the bundle by that path, one
// with the status plugin on: status about the bundle "hcp" says which
// bundle each has and the --bundle to pass, and with that --bundle it
// reads the revision and exits 0.
func TestStatusBundleNamedByPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := readFile(t, buildFile(t, exampleModel(t, acme, defaults), "cal-1", nil))
	if err := os.WriteFile(filepath.Join(dir, "cal.tar.gz"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	sidecars := []*server{
		startOPAIn(t, dir, "--bundle", "cal.tar.gz", "--set", "status.console=true"),
		startOPAIn(t, dir, "--bundle", "cal.tar.gz"),
	}
	for _, s := range sidecars {
		s.waitHealthy(t)
	}
	res, report := status(t, sidecars)
	if res.code != 1 {
		t.Errorf("status about hcp: exit %d, want 1\n%s%s", res.code, res.stdout, res.stderr)
	}
	const want = `no bundle "hcp" here: the sidecar has one, "cal.tar.gz" (opa run --bundle PATH names a bundle by its path): pass --bundle cal.tar.gz`
	for i, row := range report.Sidecars {
		if row.LastError != want || row.Revision != "" {
			t.Errorf("sidecar %d: %+v, want the error %q", i, row, want)
		}
	}
	table := hcpRego(t, t.TempDir(), "status", sidecars[1].url)
	if !strings.Contains(table.stdout, "pass --bundle cal.tar.gz") {
		t.Errorf("status's table does not say which --bundle to pass:\n%s", table.stdout)
	}
	res, report = status(t, sidecars, "--bundle", "cal.tar.gz", "--want-revision", "cal-1")
	if res.code != 0 || !report.Converged {
		t.Errorf("status --bundle cal.tar.gz --want-revision cal-1: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}
