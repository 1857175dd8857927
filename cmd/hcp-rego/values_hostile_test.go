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

// TestHostileJSONValues gives lint a policy file of 20 million values
// (40 MB of zeros): it is refused at the value past the limit of one
// file, the limit named, with a tenth of what reading it allocated (four
// files of 60 MB took 15 GB, and the schema's errors for 3 million bad
// values as much again).
func TestHostileJSONValues(t *testing.T) {
	dir, _ := fixture(t, nil)
	file := "pack/policy.json"
	treetest.Write(t, dir, map[string]string{file: `{"grants": [` + zerosJSON(20_000_000) + "]}"})
	o := runWithin(t, 400<<20, "lint", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"))
	want := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(filepath.Join(dir, file)) + `:1:2097161: more values than the limit of 1048576 for one JSON file$`)
	if o.code != exitBadInput || o.stdout != "" || !want.MatchString(o.stderr) {
		t.Errorf("%s: exit %d, stdout %.300q, stderr %.500q; want exit 2 and the file's line:col naming the limit of 1048576 values", file, o.code, o.stdout, o.stderr)
	}
}

// TestHostileGrantValues gives lint grant files of zeros for grants. A
// grant file is read one grant at a time, so that a million grants are
// never a tree of a million grants, and no limit of one file holds it:
// the run's limits do, which --max-source-bytes sets. 40 MB of zeros
// pass the bytes of 16 MiB at its 16,777,217th byte, read no further;
// 400 KB of them, 200,000 values, pass the 65,536 values of 1 MiB at
// the 65,537th. Each is refused once, at its line:col, the flag named,
// with a bounded cost a value read: no more is read, and no value is
// kept.
func TestHostileGrantValues(t *testing.T) {
	for _, tt := range []struct {
		zeros int
		limit string
		want  string
		bound uint64
	}{
		{20_000_000, "16MiB", ":1:16777217: more bytes than the limit of 16 MiB for the files of one run; --max-source-bytes raises it", 48 << 20},
		{200_000, "1MiB", ":1:131081: more values than the limit of 65536 for the JSON files of one run; --max-source-bytes raises it", 160 << 20},
	} {
		dir, _ := fixture(t, nil)
		treetest.Write(t, dir, map[string]string{"grants.json": `{"grants": [` + zerosJSON(tt.zeros) + "]}"})
		o := runWithin(t, tt.bound, "lint", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"), "--max-source-bytes", tt.limit)
		if want := filepath.Join(dir, "grants.json") + tt.want + "\n"; o.code != exitBadInput || o.stdout != "" || o.stderr != want {
			t.Errorf("%d zeros: exit %d, stdout %.300q, stderr %.500q; want exit 2 and\n%s", tt.zeros, o.code, o.stdout, o.stderr, want)
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
