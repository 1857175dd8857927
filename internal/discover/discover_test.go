package discover

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// Overlapping arguments name each pack and file once, in the spelling
// first given.
func TestDiscoveryListsEachOnce(t *testing.T) {
	dir := t.TempDir()
	treetest.Write(t, dir, map[string]string{
		"packs/a/policy.json":     "{}",
		"packs/b/policy.json":     "{}",
		"grants.json":             `{"grants": []}`,
		"cases/a.cases.yaml":      "cases: []",
		"cases/policy_test.rego":  "package t",
		"cases/more/b.cases.json": "{}",
	})
	t.Chdir(dir)

	dirs, err := PackDirs([]string{"packs", "packs/a", "./packs/b", filepath.Join(dir, "packs", "a")})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"packs/a", "packs/b"}; !slices.Equal(dirs, want) {
		t.Errorf("PackDirs: %q, want %q", dirs, want)
	}

	found, err := Discover([]string{".", "cases", "./cases/more", "grants.json"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		got, want []string
	}{
		{"packs", found.Packs, []string{"packs/a", "packs/b"}},
		{"grant files", found.GrantFiles, []string{"grants.json"}},
		{"case files", found.CaseFiles, []string{"cases/a.cases.yaml", "cases/more/b.cases.json"}},
		{"Rego tests", found.RegoTests, []string{"cases/policy_test.rego"}},
	} {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	// A root named as a file is Tidied as a command-line path is.
	found, err = Discover([]string{"./grants.json"})
	if err != nil || !slices.Equal(found.GrantFiles, []string{"grants.json"}) {
		t.Errorf("Discover(./grants.json): %q, %v", found.GrantFiles, err)
	}
}

// Paths are told apart by the files they open: "A/link/../g.json" through
// a link to another folder is another file than "A/g.json", and a folder
// reached through a link is the folder itself.
func TestSamePathFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	treetest.Write(t, dir, map[string]string{"A/g.json": "{}", "other/g.json": "{}", "other/x/keep": ""})
	t.Chdir(dir)
	if err := os.Symlink("../other/x", "A/link"); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink("A", "alias"); err != nil {
		t.Fatal(err)
	}
	got := OnceEach([]string{"A/g.json", "A/link/../g.json", "alias/g.json", "./A/g.json"})
	if want := []string{"A/g.json", "A/link/../g.json"}; !slices.Equal(got, want) {
		t.Errorf("OnceEach: %q, want %q", got, want)
	}
	if err := os.Symlink("g.json", "other/gl.json"); err != nil {
		t.Fatal(err)
	}
	// Cleaning the text would name another file after the link: such a
	// path is the file's own, its folders' links resolved (a later
	// filepath.Join would clean it as text); a link it names last stays
	// that link (--ext refuses one).
	for path, want := range map[string]string{"A/link/../g.json": "other/g.json", "./A//g.json": "A/g.json", "alias/../A/g.json": "A/g.json",
		"A/link/../gl.json": "other/gl.json", "A/link/..": "other"} {
		if got := Tidy(path); got != want {
			t.Errorf("Tidy(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestRepositoryHoldsOnlyExamplePacks checks that hcp-rego run on this
// repository's root (lint, test ., matrix --diff) finds the example packs
// under testdata and nothing else: a folder holding a policy.json, such as
// the JSON Schemas once were, would be a broken pack.
func TestRepositoryHoldsOnlyExamplePacks(t *testing.T) {
	dirs, err := PackDirs([]string{"../.."})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no pack found under the repository root")
	}
	for _, dir := range dirs {
		if !strings.HasPrefix(dir, "../../testdata/") {
			t.Errorf("pack folder %s outside testdata/", dir)
		}
	}
}

// TestDiscoverIncomplete checks that discovery says packs may be missing
// only when a path could not be walked, not for a broken file it met.
func TestDiscoverIncomplete(t *testing.T) {
	dir := t.TempDir()
	treetest.Write(t, dir, map[string]string{"broken.json": `{"grants": [`})
	found, err := Discover([]string{dir})
	if err == nil || found.Incomplete {
		t.Errorf("a broken file: error %v, incomplete %v; want an error and a complete walk", err, found.Incomplete)
	}
	found, err = Discover([]string{dir, filepath.Join(dir, "nowhere")})
	if err == nil || !found.Incomplete {
		t.Errorf("a missing path: error %v, incomplete %v; want an error and an incomplete walk", err, found.Incomplete)
	}
}

// TestDiscoverFollowsLinks: a folder that a symbolic link puts in the tree
// is walked (a case file in it used to be passed over, and the run passed
// without it), the root may be a link, a link back up ends the walk there,
// a folder skipped by its name is walked through a link with another name,
// and a link named as a skipped folder is skipped as one. A link out of the
// PATH's tree is not followed but reported: a link to / would walk the
// machine.
func TestDiscoverFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	treetest.Write(t, dir, map[string]string{
		"tree/a.cases.yaml":                "cases: []",
		"tree/_shared/b.cases.yaml":        "cases: []",
		"tree/_shared/packs/p/policy.json": "{}",
		"hidden/c.cases.yaml":              "cases: []",
		"tree/after/z.cases.yaml":          "cases: []",
		"tree/nested/deeper/.keep.txt":     "",
		"out/d.cases.yaml":                 "cases: []",
	})
	t.Chdir(dir)
	for link, target := range map[string]string{
		"tree/linked":             "_shared",
		"tree/nested/deeper/loop": "../..",
		"tree/_skipped":           "../hidden",
		"tree/gone.cases.yaml":    "nothing",
		"treelink":                "tree",
		"out/escape":              "../hidden",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	for _, root := range []string{"tree", "treelink"} {
		found, err := Discover([]string{root})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{root + "/a.cases.yaml", root + "/after/z.cases.yaml", root + "/gone.cases.yaml", root + "/linked/b.cases.yaml"}
		if !slices.Equal(found.CaseFiles, want) {
			t.Errorf("%s: case files %q, want %q", root, found.CaseFiles, want)
		}
		if want := []string{root + "/linked/packs/p"}; !slices.Equal(found.Packs, want) {
			t.Errorf("%s: packs %q, want %q", root, found.Packs, want)
		}
	}
	dirs, err := PackDirs([]string{"treelink"})
	if err != nil || !slices.Equal(dirs, []string{"treelink/linked/packs/p"}) {
		t.Errorf("PackDirs(treelink): %q, %v", dirs, err)
	}
	found, err := Discover([]string{"out"})
	if err == nil || !strings.Contains(err.Error(), "out/escape: a link to a folder outside the PATH, which is not followed") || !found.Incomplete {
		t.Errorf("a link out of the tree: %v, incomplete %v", err, found.Incomplete)
	}
	if !slices.Equal(found.CaseFiles, []string{"out/d.cases.yaml"}) {
		t.Errorf("case files %q beside the link out", found.CaseFiles)
	}
}
