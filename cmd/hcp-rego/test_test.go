package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/testrun"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// runTestCLI runs the command line in-process and returns the exit code, stdout
// and stderr.
func runTestCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, streams{in: bytes.NewReader(nil), out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

// mixedTree writes a pack, a grant file, a case file with one failing
// case of three, and a Rego test file with one failing test of two.
func mixedTree(t *testing.T) {
	t.Helper()
	files := map[string]string{
		"shop/manifest.json": `{"id": "shop", "commands": {"browse": {}}}`,
		"shop/policy.json":   `{"surface_id": "shop", "verbs": {"browse": {"operation": "read", "privacy": {"land": "personal"}}}}`,
		"grants.json":        `{"grants": [{"subject": "role:buyer", "pack_id": "shop", "capabilities": ["verb.exec.read"]}]}`,
		"shop.cases.yaml": `cases:
  - { name: allowed, input: { principal: { id: a, roles: [buyer] }, pack_id: shop, verb_key: browse, owner: a }, want: { code: allowed } }
  - { name: denied, input: { principal: { id: b }, pack_id: shop, verb_key: browse, owner: b }, want: { code: capability_required } }
  - { name: wrong, input: { principal: { id: b }, pack_id: shop, verb_key: browse, owner: b }, want: { code: allowed } }
`,
		"shop_test.rego": "package shop_test\n\ntest_ok if true\n\ntest_bad if false\n",
	}
	dir := t.TempDir()
	treetest.Write(t, dir, files)
	t.Chdir(dir)
}

func TestTestJUnitParsesBack(t *testing.T) {
	mixedTree(t)
	code, stdout, stderr := runTestCLI(t, "test", "--format", "junit")
	if code != exitFindings || stderr != "3 passed, 2 failed\n" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var doc testrun.JUnit
	err := xml.Unmarshal([]byte(stdout), &doc)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, stdout)
	}
	if doc.Tests != 5 || doc.Failures != 2 || doc.Errors != 0 || doc.Skipped != 0 {
		t.Errorf("tests %d failures %d errors %d skipped %d, want 5 2 0 0", doc.Tests, doc.Failures, doc.Errors, doc.Skipped)
	}
	failed := map[string]int{}
	cases := 0
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			cases++
			if c.Failure != nil {
				failed[c.Name] = c.Line
			}
		}
	}
	want := map[string]int{"wrong": 4, "data.shop_test.test_bad": 5}
	if cases != 5 || len(failed) != 2 || failed["wrong"] != want["wrong"] || failed["data.shop_test.test_bad"] != want["data.shop_test.test_bad"] {
		t.Errorf("%d cases, failed %v, want 5 and %v", cases, failed, want)
	}
}

func TestTestJSONParsesBack(t *testing.T) {
	mixedTree(t)
	code, stdout, stderr := runTestCLI(t, "test", "--format", "json", "--coverage")
	if code != exitFindings || stderr != "3 passed, 2 failed\n" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var doc testrun.JSONReport
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("parse: %v\n%s", err, stdout)
	}
	if doc.Passed != 3 || doc.Failed != 2 || len(doc.Tests) != 5 {
		t.Errorf("passed %d failed %d tests %d, want 3 2 5", doc.Passed, doc.Failed, len(doc.Tests))
	}
	wrong := doc.Tests[2]
	if wrong.Name != "wrong" || wrong.Line != 4 || len(wrong.Diffs) != 1 || wrong.Diffs[0].Want != "allowed" || wrong.Diffs[0].Got != "capability_required" {
		t.Errorf("wrong case %+v", wrong)
	}
	if c := doc.Coverage; c == nil || c.Percent != "100.0%" || c.Reached != 1 || c.Total != 1 {
		t.Errorf("coverage %+v", doc.Coverage)
	}
}

func TestTestDogfoodJUnit(t *testing.T) {
	t.Chdir("../..")
	code, stdout, stderr := runTestCLI(t, "test", "--format", "junit", "testdata/")
	if code != exitOK || stderr != "42 passed, 0 failed\n" {
		t.Fatalf("exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	var doc testrun.JUnit
	err := xml.Unmarshal([]byte(stdout), &doc)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 42 || doc.Failures != 0 || len(doc.Suites) != 5 {
		t.Errorf("tests %d failures %d suites %d, want 42 0 5", doc.Tests, doc.Failures, len(doc.Suites))
	}
}

// TestTestSameFromAnyFolder runs the example tests from the repository's
// root, from inside testdata, and on a copy of testdata under another
// name, from beside it and from inside it, by relative and absolute
// paths: the results are the same, all passing (docs/tests.md: the paths
// of a case's want.source are relative to the case file). They gave 31
// passed and 11 failed anywhere but the root, when want.source named
// paths as the root's run gives them to the compiler.
func TestTestSameFromAnyFolder(t *testing.T) {
	testdata, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "examples copy")
	if err := os.CopyFS(other, os.DirFS(testdata)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, dir, path string }{
		{"the repository's root", filepath.Dir(testdata), "testdata/"},
		{"inside testdata", testdata, "."},
		{"inside testdata/cases", filepath.Join(testdata, "cases"), ".."},
		{"beside a copy under another name", filepath.Dir(other), "examples copy"},
		{"inside the copy", other, "."},
		{"anywhere, the copy's absolute path", testdata, other},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(c.dir)
			code, stdout, stderr := runTestCLI(t, "test", "--coverage", c.path)
			if code != exitOK || !strings.HasSuffix(stdout, "\n42 passed, 0 failed\n") || stderr != "" {
				t.Errorf("exit %d, stderr %q\n%s", code, stderr, stdout)
			}
		})
	}
}
