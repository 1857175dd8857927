package compile_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/rego/library"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// exampleModel loads the example packs from the repository root, so that
// provenance reads "testdata/packs/...".
func exampleModel(t *testing.T) *compile.Model {
	t.Helper()
	t.Chdir("..")
	m, err := compile.Checked([]string{"testdata/packs"}, []string{"testdata/grants/acme.json", "testdata/grants/defaults.json"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPackRowsGolden compares each pack's rows, as data.hcp_packs holds
// them, with its golden file (testdata/golden/packs/<id>.json). Run `go
// test ./compile -update` to rewrite them after a deliberate change, and
// review the diff.
func TestPackRowsGolden(t *testing.T) {
	m := exampleModel(t)
	packs := compile.PacksData(m)
	for _, p := range m.Packs() {
		got, err := json.MarshalIndent(packs[p.ID], "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		golden := filepath.Join("testdata/golden/packs", p.ID+".json")
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run: go test ./compile -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs:\n%s\nrun: go test ./compile -update, and review the diff", golden, lineDiff(want, got))
		}
	}
}

// lineDiff shows a unified diff of two texts, with diff(1) when it is there.
func lineDiff(want, got []byte) string {
	dir, _ := os.MkdirTemp("", "golden")
	defer os.RemoveAll(dir)
	a, b := filepath.Join(dir, "want"), filepath.Join(dir, "got")
	os.WriteFile(a, want, 0o644)
	os.WriteFile(b, got, 0o644)
	out, _ := exec.Command("diff", "-u", a, b).CombinedOutput()
	return string(out)
}

// TestLibraryFormattedAndStrict checks that the decision library, a
// bundle's only Rego, is formatted exactly as opa fmt formats it and passes
// strict compilation.
func TestLibraryFormattedAndStrict(t *testing.T) {
	parsed := map[string]*ast.Module{}
	for _, mod := range library.Modules() {
		formatted, err := format.SourceWithOpts(mod.Path, mod.Source, format.Opts{RegoVersion: ast.RegoV1})
		if err != nil {
			t.Fatalf("%s: %v", mod.Path, err)
		}
		if !bytes.Equal(formatted, mod.Source) {
			t.Errorf("%s is not formatted as opa fmt formats it:\n%s", mod.Path, lineDiff(mod.Source, formatted))
		}
		parsed[mod.Path], err = ast.ParseModuleWithOpts(mod.Path, string(mod.Source), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			t.Fatal(err)
		}
	}
	c := ast.NewCompiler().WithStrict(true)
	if c.Compile(parsed); c.Failed() {
		t.Fatalf("strict compilation failed:\n%v", c.Errors)
	}
}

// TestPositionRoundTrip decodes grant positions, the largest line too.
func TestPositionRoundTrip(t *testing.T) {
	for _, p := range [][2]int{{0, 1}, {1, 5}, {7, 1<<32 - 1}, {1 << 20, 3}} {
		if file, line := compile.DecodePosition(compile.EncodePosition(p[0], p[1])); file != p[0] || line != p[1] {
			t.Errorf("position of file %d line %d decodes to file %d line %d", p[0], p[1], file, line)
		}
	}
	if compile.EncodePosition(0, 1<<32-1) >= compile.EncodePosition(1, 1) {
		t.Error("a grant in the first file must come before any in the second")
	}
}
