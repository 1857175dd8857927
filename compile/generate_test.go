package compile_test

import (
	"bytes"
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

// TestPackModulesGolden compares each generated pack module with its golden
// file. Run `go test ./compile -update` to rewrite them after a deliberate
// change, and review the diff.
func TestPackModulesGolden(t *testing.T) {
	m := exampleModel(t)
	for _, p := range m.Packs() {
		mod, err := compile.PackModule(p)
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata/golden/packs", p.ID+".rego")
		if *update {
			if err := os.WriteFile(golden, mod.Source, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run: go test ./compile -update)", err)
		}
		if !bytes.Equal(mod.Source, want) {
			t.Errorf("%s differs from %s:\n%s\nrun: go test ./compile -update, and review the diff", mod.Path, golden, lineDiff(want, mod.Source))
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

// TestModulesFormattedAndStrict checks that every module of a bundle (the
// library and each generated pack module, including an id with "-" and
// keys that are Rego keywords) is formatted exactly as opa fmt formats it
// and passes strict compilation.
func TestModulesFormattedAndStrict(t *testing.T) {
	m := exampleModel(t)
	var mods []compile.Module
	for _, lib := range library.Modules() {
		mods = append(mods, compile.Module{Path: lib.Path, Source: lib.Source})
	}
	for _, p := range m.Packs() {
		mod, err := compile.PackModule(p)
		if err != nil {
			t.Fatal(err)
		}
		mods = append(mods, mod)
	}
	odd := oddPackModule(t)
	if !bytes.Contains(odd.Source, []byte("\t# from \"")) || bytes.Contains(odd.Source, []byte("\ninjected")) {
		t.Errorf("a path with a line break is not quoted in comments:\n%s", odd.Source)
	}
	mods = append(mods, odd)
	parsed := map[string]*ast.Module{}
	for _, mod := range mods {
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

// oddPackModule generates a pack whose id has a "-" and is a Rego keyword
// after it, with keys that are keywords and cli tokens with spaces, in a
// folder whose name holds a byte-order mark, a NEL, a line break and what
// would be Rego after it.
func oddPackModule(t *testing.T) compile.Module {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "odd\ufeff\u0085\ninjected := 1\n#") // a path that is not UTF-8 is refused (TestPathsMustBeUTF8)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skip(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("manifest.json", `{"id": "default-in", "commands": {"import": {"cli": ["x", "a b", "{c}", "", "--confirm"]}, "package": {}}, "stimulusTriggers": ["else"]}`)
	write("policy.json", `{"surface_id": "default-in", "verbs": {
		"import": {"operation": "write", "privacy": {"land": "local"}, "confirm": "always"},
		"package": {"operation": "read", "privacy": {"land": "brain"}}},
		"stimuli": {"else": {"operation": "read", "privacy": {"land": "personal"}}}}`)
	m, err := compile.Load([]string{dir}, nil).Check()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := compile.PackModule(m.Packs()[0])
	if err != nil {
		t.Fatal(err)
	}
	return mod
}
