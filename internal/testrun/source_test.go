package testrun

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWantSourceRelativeToCaseFile checks that a case's want.source paths
// are read relative to the case file (docs/tests.md), matched by the file
// they open and the line, whatever the run gave the compiler: a case file
// naming its packs and grants, one that names none (all that were found),
// and the run's PATH given relative, absolute and with "./". A source
// that differs is shown relative to the case file.
func TestWantSourceRelativeToCaseFile(t *testing.T) {
	files := maps.Clone(shop)
	delete(files, "tests/shop.cases.yaml")
	delete(files, "tests/shop_test.rego")
	const browse = "input: { principal: { id: b, roles: [buyer] }, pack_id: shop, verb_key: browse, owner: b }"
	files["tests/named.cases.yaml"] = "packs: [../packs/shop]\ngrants: [../grants.json]\ncases:\n" +
		"  - { name: as written, " + browse + ", want: { source: { row: ../packs/shop/policy.json:4, grant: ../grants.json:2 } } }\n" +
		"  - { name: spelled otherwise, " + browse + ", want: { source: { row: ./../packs//shop/policy.json:4, grant: ../tests/../grants.json:2 } } }\n"
	files["tests/deep/found.cases.yaml"] = "cases:\n" +
		"  - { name: found, " + browse + ", want: { source: { row: ../../packs/shop/policy.json:4, grant: ../../grants.json:2 } } }\n" +
		"  - { name: another line, " + browse + ", want: { source: { row: ../../packs/shop/policy.json:5 } } }\n" +
		"  - { name: as the root gives it, " + browse + ", want: { source: { grant: grants.json:2 } } }\n"
	files["tests/deep/named.cases.yaml"] = "packs: [../../packs/shop]\ngrants: [../../grants.json]\ncases:\n" +
		"  - { name: linked, " + browse + ", want: { source: { row: ../../packs/shop/policy.json:4, grant: ../../grants.json:2 } } }\n"
	caseTree(t, files)
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{".", "./", root, "tests/.."} {
		t.Run(path, func(t *testing.T) {
			report, err := Run(context.Background(), Options{Paths: []string{path}})
			if err != nil {
				t.Fatal(err)
			}
			var failed []string
			for _, res := range report.Results {
				if res.Status == Fail {
					failed = append(failed, res.Name+": "+strings.Join(res.Details(), "; "))
				}
			}
			want := []string{
				`another line: source.row: want "../../packs/shop/policy.json:5", got "../../packs/shop/policy.json:4"; decision: code "allowed"`,
				`as the root gives it: source.grant: want "grants.json:2", got "../../grants.json:2"; decision: code "allowed"`,
			}
			if strings.Join(failed, "\n") != strings.Join(want, "\n") {
				t.Errorf("failures\n%s\nwant\n%s", strings.Join(failed, "\n"), strings.Join(want, "\n"))
			}
		})
	}
	// The case file's own folder, reached through a link: its paths are
	// read as the system reads them, beside the link's target.
	if err := os.Symlink(filepath.Join(root, "tests", "deep"), filepath.Join(root, "linked")); err != nil {
		t.Skip(err)
	}
	report, err := Run(context.Background(), Options{Paths: []string{"linked/named.cases.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	if report.Count(Pass) != 1 || report.Count(Fail) != 0 {
		t.Errorf("through a link: %s, want 1 passed, 0 failed: %v", report.Totals(), report.Results[0].Details())
	}
}
