package scaffold

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestCheckID(t *testing.T) {
	for id, ok := range map[string]bool{
		"billing": true, "a": true, "0": true, "my_pack-2": true, strings.Repeat("z", 244): true,
		"": false, "Billing": false, "_x": false, "-x": false, "a b": false, "a.b": false, `a"b`: false,
		"a\nb": false, "é": false, strings.Repeat("z", 245): false,
	} {
		if err := CheckID(id); (err == nil) != ok {
			t.Errorf("CheckID(%q): %v", id, err)
		}
	}
	if err := CheckID("Billing"); !errors.Is(err, ErrBadID) || err.Error() != `pack id "Billing": `+ErrBadID.Error() {
		t.Errorf("CheckID(Billing): %v", err)
	}
}

// TestPackParses: for ids that YAML would read as another type unquoted
// (a number, a boolean, null), every file parses and names the pack by
// the id as a string.
func TestPackParses(t *testing.T) {
	for _, id := range []string{"billing", "123", "0x1f", "1e5", "true", "null", "no", "a-b_c"} {
		files, err := Pack(id)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range files {
			paths = append(paths, f.Path)
			if bytes.Contains(f.Data, []byte("{{")) {
				t.Errorf("%s: %s: a template action left unfilled", id, f.Path)
			}
			var doc map[string]any
			if strings.HasSuffix(f.Path, ".yaml") {
				err = yaml.Unmarshal(f.Data, &doc)
			} else {
				err = json.Unmarshal(f.Data, &doc)
			}
			if err != nil {
				t.Fatalf("%s: %s: %v", id, f.Path, err)
			}
			if strings.HasSuffix(f.Path, ".yaml") {
				for _, c := range doc["cases"].([]any) {
					input := c.(map[string]any)["input"].(map[string]any)
					if input["pack_id"] != id {
						t.Errorf("%s: a case's pack_id reads as %#v", id, input["pack_id"])
					}
				}
			}
		}
		want := []string{"packs/" + id + "/manifest.json", "packs/" + id + "/policy.json", "grants/" + id + ".json", "cases/" + id + ".cases.yaml"}
		if !slices.Equal(paths, want) {
			t.Errorf("%s: paths %v, want %v", id, paths, want)
		}
	}
	if _, err := Pack("Bad"); err == nil {
		t.Error("Pack(Bad) gave files")
	}
}

// tree lists the files and folders under dir.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	files, err := Pack("billing")
	if err != nil {
		t.Fatal(err)
	}
	written, err := Write(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".", "cases", "cases/billing.cases.yaml", "grants", "grants/billing.json", "packs", "packs/billing", "packs/billing/manifest.json", "packs/billing/policy.json"}
	if got := tree(t, dir); !slices.Equal(got, want) {
		t.Errorf("wrote %v, want %v (no temporary file)", got, want)
	}
	if len(written) != 4 || written[0] != filepath.Join(dir, "packs", "billing", "manifest.json") {
		t.Errorf("written %v", written)
	}
	// A second run finds them all and writes nothing.
	if err := os.WriteFile(written[2], []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Write(dir, files)
	var exists *ExistsError
	if !errors.As(err, &exists) || len(exists.Paths) != 4 {
		t.Fatalf("second Write: %v", err)
	}
	if data, _ := os.ReadFile(written[2]); string(data) != "mine" {
		t.Errorf("the author's grants file was replaced: %q", data)
	}
}

// TestWriteUndoes: a write that fails half way removes the files and the
// folders it made, and leaves what was there.
func TestWriteUndoes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A link to nothing: the check sees no case file there, the write then
	// cannot make the folder.
	if err := os.Symlink("nowhere", filepath.Join(dir, "cases")); err != nil {
		t.Skip(err)
	}
	files, err := Pack("billing")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, files); err == nil || !strings.Contains(err.Error(), "cases/billing.cases.yaml") {
		t.Fatalf("Write: %v, want an error naming the case file", err)
	}
	if got := tree(t, dir); !slices.Equal(got, []string{".", "README", "cases"}) {
		t.Errorf("left %v", got)
	}
}
