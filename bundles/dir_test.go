package bundles_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/rego/library"
)

// dirTree is what WriteDir writes for the example packs, in walk order.
func dirTree() []string {
	tree := []string{".manifest", "hcp", "hcp/authz"}
	for _, mod := range library.Modules() {
		tree = append(tree, mod.Path)
	}
	tree = append(tree, "hcp/authz/data.json")
	slices.Sort(tree)
	return append(tree, "hcp_grants", "hcp_grants/data.json", "hcp_packs", "hcp_packs/data.json")
}

func assemble(t *testing.T, revision string) *bundle.Bundle {
	t.Helper()
	b, err := compile.Compile(exampleModel(t), revision)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriteDir(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	b := assemble(t, "r1")
	if err := bundles.WriteDir(out, b); err != nil {
		t.Fatal(err)
	}
	assertTree(t, out, dirTree())
	data, _ := os.ReadFile(filepath.Join(out, "hcp_grants/data.json"))
	want, _ := json.Marshal(b.Data["hcp_grants"])
	if string(data) != string(want)+"\n" || len(want) < 100 {
		t.Errorf("hcp_grants/data.json\n%s\nwant\n%s", data, want)
	}
	for _, mod := range b.Modules {
		if src, _ := os.ReadFile(filepath.Join(out, mod.Path)); string(src) != string(mod.Raw) {
			t.Errorf("%s differs from the module", mod.Path)
		}
	}

	// Writing again replaces the previous output and leaves no sibling.
	if err := bundles.WriteDir(out, assemble(t, "r2")); err != nil {
		t.Fatal(err)
	}
	assertTree(t, out, dirTree())
	read, err := bundles.Read(out, nil, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if read.Manifest.Revision != "r2" {
		t.Errorf("revision %q after rewrite", read.Manifest.Revision)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("%s holds %d entries, want only out", parent, len(entries))
	}
}

func TestWriteDirRefuses(t *testing.T) {
	signed := assemble(t, "")
	if err := (&bundles.Signing{KeyFile: keys + "rsa.key"}).Sign(signed); err != nil {
		t.Fatal(err)
	}
	outside := assemble(t, "")
	outside.Data["other"] = map[string]any{"x": 1}
	tests := []struct {
		name   string
		before map[string]string // files at the target before; "" names a folder
		target string            // relative to the temporary folder
		b      *bundle.Bundle
		want   string
	}{
		{"a folder of something else", map[string]string{"out/notes.txt": "mine"}, "out", assemble(t, ""), "exists and is not a bundle directory that hcp-rego wrote; remove it or choose another"},
		{"a file", map[string]string{"out": "mine"}, "out", assemble(t, ""), "exists and is not a directory"},
		{"a foreign .manifest", map[string]string{"out/.manifest": `{"revision": "x"}`}, "out", assemble(t, ""), "exists and is not a bundle directory that hcp-rego wrote; remove it or choose another"},
		{"a missing parent", nil, "missing/out", assemble(t, ""), "no such file or directory"},
		{"a signed bundle", nil, "out", signed, "a signed bundle is written as a .tar.gz only"},
		{"data outside the roots", nil, "out", outside, "data other is outside the bundle's roots"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var tree []string
			for path, text := range tt.before {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o755)
				os.WriteFile(filepath.Join(dir, path), []byte(text), 0o644)
				tree = append(tree, strings.Split(path, "/")[0])
				if strings.Contains(path, "/") {
					tree = append(tree, path)
				}
			}
			target := filepath.Join(dir, tt.target)
			err := bundles.WriteDir(target, tt.b)
			if err == nil || err.Error() != "write "+target+": "+tt.want {
				t.Errorf("error %v\nwant write %s: %s", err, target, tt.want)
			}
			assertTree(t, dir, tree)
			for path, text := range tt.before {
				if got, _ := os.ReadFile(filepath.Join(dir, path)); string(got) != text {
					t.Errorf("%s now holds %q", path, got)
				}
			}
		})
	}
}

func TestWriteDirIntoEmptyFolder(t *testing.T) {
	out := t.TempDir()
	if err := bundles.WriteDir(out, assemble(t, "")); err != nil {
		t.Fatal(err)
	}
	assertTree(t, out, dirTree())
}
