package testrun

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// FuzzCaseFile runs a fuzzed case file (YAML, or JSON when asJSON) through
// the whole of `hcp-rego test` beside copies of the example packs and
// grant files, which it may name as ../packs/NAME, ../grants/NAME.json and
// ../seed004/...
// No input may panic. A refused file gives source errors that name it, at
// positions inside it; an accepted one gives one result a case, each at a
// line of the file, and every report format writes it (JUnit reads back
// with a test case for each). Seeds: the case files in testdata/cases.
func FuzzCaseFile(f *testing.F) {
	paths, _ := filepath.Glob("../../testdata/cases/*.cases.*")
	if len(paths) == 0 {
		f.Fatal("no case files in ../../testdata/cases")
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, strings.HasSuffix(path, ".json"))
	}
	f.Add([]byte("cases: [{name: a, input: {principal: {id: x}}, want: {code: invalid_input}}, {name: a, input: 1, want: {}}]\n"), false)
	f.Add([]byte("packs: [../packs/ledger, ../packs/ledger/]\ngrants: [../grants]\ncases: []\n"), false)
	f.Add([]byte(`{"cases": [{"name": "\u0000<&>\"", "input": null, "want": {"code": "invalid_input", "pack_id": null}, "ext": {"deny": ["x"]}}]}`), true)
	root := f.TempDir()
	treetest.CopyTree(f, "../../testdata/packs", filepath.Join(root, "packs"))
	treetest.CopyTree(f, "../../testdata/grants", filepath.Join(root, "grants"))
	treetest.CopyTree(f, "../../testdata/seed004", filepath.Join(root, "seed004"))
	dir := filepath.Join(root, "cases")
	if err := os.Mkdir(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		path, other := filepath.Join(dir, "fuzz.cases.yaml"), filepath.Join(dir, "fuzz.cases.json")
		if asJSON {
			path, other = other, path
		}
		os.Remove(other)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		report, err := Run(context.Background(), Options{Paths: []string{dir}, Coverage: true})
		if err != nil {
			checkCaseErrors(t, err, path, dir, data)
			return
		}
		checkReport(t, report, path, data)
	})
}

// checkCaseErrors holds every problem to be a source error in the case
// file, inside it, or the run's one error with no position about the
// folder (no tests to run).
func checkCaseErrors(t *testing.T, err error, path, dir string, data []byte) {
	t.Helper()
	var list problem.Errors
	var one *problem.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = problem.Errors{one}
	default:
		t.Fatalf("error of type %T, not a source error: %v", err, err)
	}
	lines := treetest.Lines(string(data))
	for _, e := range list {
		switch {
		case e.File == dir && e.Pos == (problem.Pos{}):
		case e.File != path:
			t.Fatalf("error names %q, not the case file: %v", e.File, e)
		case e.Pos == (problem.Pos{}):
		case e.Pos.Line < 1 || e.Pos.Line > len(lines) || e.Pos.Col < 1 || e.Pos.Col > utf8.RuneCountInString(lines[e.Pos.Line-1])+1:
			t.Fatalf("error at %d:%d, outside the file: %v", e.Pos.Line, e.Pos.Col, e)
		}
	}
}

// checkReport holds an accepted file's report to its cases.
func checkReport(t *testing.T, r *Report, path string, data []byte) {
	t.Helper()
	cf, err := LoadCaseFile(path, document.NewBudget(), nil)
	if err != nil {
		t.Fatalf("the run accepted a case file that LoadCaseFile refuses: %v", err)
	}
	if len(r.Results) != len(cf.Cases) || r.Count(Pass)+r.Count(Fail) != len(cf.Cases) {
		t.Fatalf("%d results (%d passed, %d failed) for %d cases", len(r.Results), r.Count(Pass), r.Count(Fail), len(cf.Cases))
	}
	lines := len(treetest.Lines(string(data)))
	for _, res := range r.Results {
		if res.File != path || res.Pos.Line < 1 || res.Pos.Line > lines {
			t.Fatalf("result %q at %s:%d, not in the case file of %d lines", res.Name, res.File, res.Pos.Line, lines)
		}
		if res.Status == Fail && len(res.Details()) == 0 {
			t.Fatalf("failing case %q says nothing about why", res.Name)
		}
	}
	for name, write := range map[string]func(*Report, io.Writer) error{"pretty": (*Report).WritePretty, "json": (*Report).WriteJSON, "github": (*Report).WriteGitHub} {
		if err := write(r, io.Discard); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var junit bytes.Buffer
	if err := r.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	doc, err := parseJUnit(junit.Bytes())
	if err != nil {
		t.Fatalf("JUnit does not read back: %v\n%s", err, junit.Bytes())
	}
	var names []string
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			names = append(names, c.Name)
		}
	}
	if doc.Tests != len(cf.Cases) || len(names) != len(cf.Cases) {
		t.Fatalf("JUnit reads back with %d tests, %d test cases, want %d:\n%s", doc.Tests, len(names), len(cf.Cases), junit.Bytes())
	}
}
