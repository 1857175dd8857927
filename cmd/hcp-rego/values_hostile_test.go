package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// zerosJSON is n zeros, comma-separated: 2 bytes a value of JSON.
func zerosJSON(n int) string { return strings.TrimSuffix(strings.Repeat("0,", n), ",") }

// TestHostileJSONValues gives lint a grant file of 20 million values (40
// MB of zeros in its grants array), and a policy file of as many: each
// is refused at the value past the limit of one file, the limit named,
// with a tenth of what reading it allocated (four files of 60 MB took 15
// GB, and the schema's errors for 3 million bad grants as much again).
func TestHostileJSONValues(t *testing.T) {
	for _, file := range []string{"grants.json", "pack/policy.json"} {
		dir, _ := fixture(t, nil)
		treetest.Write(t, dir, map[string]string{file: `{"grants": [` + zerosJSON(20_000_000) + "]}"})
		o := runWithin(t, 400<<20, "lint", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"))
		want := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(filepath.Join(dir, file)) + `:1:2097161: more values than the limit of 1048576 for one JSON file$`)
		if o.code != exitBadInput || o.stdout != "" || !want.MatchString(o.stderr) {
			t.Errorf("%s: exit %d, stdout %.300q, stderr %.500q; want exit 2 and the file's line:col naming the limit of 1048576 values", file, o.code, o.stdout, o.stderr)
		}
	}
}

// TestHostileYAMLValues gives test a case file of 8 MB of zeros, which
// took 6.4 GB and 49 s: it is refused before the YAML library reads it.
func TestHostileYAMLValues(t *testing.T) {
	dir, _ := fixture(t, nil)
	treetest.Write(t, dir, map[string]string{"z.cases.yaml": "cases: [" + zerosJSON(4_000_000) + "]\n"})
	o := runWithin(t, 64<<20, "test", dir)
	want := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(filepath.Join(dir, "z.cases.yaml")) + `:1:\d+: more values than the limit of 1048576 for the YAML files of one run`)
	if o.code != exitBadInput || o.stdout != "" || !want.MatchString(o.stderr) {
		t.Errorf("exit %d, stdout %.300q, stderr %.500q; want exit 2 and the case file's line:col naming the limit of 1048576 values", o.code, o.stdout, o.stderr)
	}
}
