package main

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// exampleTrees are the testdata folders that the help examples name.
var exampleTrees = []string{"packs", "grants", "cases", "inputs", "keys", "ext", "seed004", "logs"}

// exampleNeeds names the command whose example makes the files another's
// example reads: eval's verifies the bundle that build's signs.
var exampleNeeds = map[string]string{"eval": "build"}

// TestHelpExamplesRun runs every command's --help example, as a shell
// script, in a folder that holds the repository's example testdata: an
// example that does not work as written is a defect. opa is the pinned
// OPA (go tool opa), but for "opa run", which would start a server; git is
// stubbed (git worktree copies the folder).
func TestHelpExamplesRun(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here")
	}
	opa, err := exec.Command("go", "tool", "-n", "opa").Output()
	if err != nil {
		t.Fatalf("go tool -n opa: %v", err)
	}
	stubs := "set -e -o pipefail\n" +
		`opa() { if [ "$1" = run ]; then :; else "$OPA" "$@"; fi; }` + "\n" +
		`git() { if [ "$1" = worktree ]; then cp -R . "$3"; else echo 0123456789abcdef; fi; }` + "\n"
	root := newRootCommand(streams{})
	example := func(name string) string {
		cmd, _, err := root.Find(strings.Fields(name))
		if err != nil || cmd.Example == "" {
			t.Fatalf("command %s: no example (%v)", name, err)
		}
		return cmd.Example + "\n"
	}
	for _, name := range []string{"lint", "compile", "build", "eval", "test", "matrix", "compare", "replay", "export", "schema", "version", "init", "init pack", "completion", "completion bash", ""} {
		t.Run(cmp.Or(name, "hcp-rego"), func(t *testing.T) {
			script := stubs
			if need, ok := exampleNeeds[name]; ok {
				script += example(need)
			}
			sh := exec.Command("bash", "-c", script+example(name))
			sh.Dir = exampleFolder(t)
			sh.Env = append(os.Environ(), "OPA="+strings.TrimSpace(string(opa)))
			if out, err := sh.CombinedOutput(); err != nil {
				t.Errorf("the example of hcp-rego %s fails: %v\n%s\n%s", name, err, example(name), out)
			}
		})
	}
}

// exampleFolder is a fresh folder holding the example testdata.
func exampleFolder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "work")
	for _, tree := range exampleTrees {
		if err := os.CopyFS(filepath.Join(dir, "testdata", tree), os.DirFS(filepath.Join("../../testdata", tree))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestEveryCommandHasExample: --help on every command, cobra's completion
// commands too, shows an example.
func TestEveryCommandHasExample(t *testing.T) {
	var visit func(*cobra.Command)
	visit = func(cmd *cobra.Command) {
		if cmd.Hidden || cmd.Name() == "help" {
			return
		}
		if cmd.Example == "" {
			t.Errorf("%s: no example", cmd.CommandPath())
		}
		for _, sub := range cmd.Commands() {
			visit(sub)
		}
	}
	visit(newRootCommand(streams{}))
}
