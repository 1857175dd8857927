package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// exampleTrees are the testdata folders that the help examples name.
var exampleTrees = []string{"packs", "grants", "cases", "inputs", "keys", "ext", "seed004"}

// TestHelpExamplesRun runs every command's --help example, as a shell
// script, in a folder that holds the repository's example testdata: an
// example that does not work as written is a defect. opa and git, which
// the examples also call, are stubbed (git worktree copies the folder).
func TestHelpExamplesRun(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here")
	}
	dir := filepath.Join(t.TempDir(), "work")
	for _, tree := range exampleTrees {
		if err := os.CopyFS(filepath.Join(dir, "testdata", tree), os.DirFS(filepath.Join("../../testdata", tree))); err != nil {
			t.Fatal(err)
		}
	}
	const stubs = "set -e -o pipefail\n" +
		"opa() { :; }\n" +
		`git() { if [ "$1" = worktree ]; then cp -R . "$3"; else echo 0123456789abcdef; fi; }` + "\n"
	root := newRootCommand(streams{})
	for _, name := range []string{"lint", "compile", "build", "eval", "test", "matrix", "export", "schema", "version"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil || cmd.Example == "" {
			t.Fatalf("command %s: no example (%v)", name, err)
		}
		t.Run(name, func(t *testing.T) {
			sh := exec.Command("bash", "-c", stubs+cmd.Example)
			sh.Dir = dir
			out, err := sh.CombinedOutput()
			if err != nil {
				t.Errorf("the example of hcp-rego %s fails: %v\n%s\n%s", name, err, cmd.Example, out)
			}
		})
	}
}
