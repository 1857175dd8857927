package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// hostileCommand is one command line that reads the fixture's files.
type hostileCommand struct {
	name string
	// args are the command line: "@PATH" stands for PATH in the fixture's
	// folder, "OLD" for the old folder of matrix --diff.
	args    []string
	targets []string // the files a hostile one replaces
	// output is the -o path; runs start with it absent (nothing may be
	// written) or with an earlier output (it must stay byte-identical),
	// every other kind of file each.
	output   string
	existing map[string]string // the files of an earlier output at output
	// discovers is true when grant files are found by content, not named:
	// a file that does not mention "grants" is then no grant file at all.
	discovers bool
}

var packTargets = []string{"pack/manifest.json", "pack/policy.json", "grants.json"}

var hostileCommands = []hostileCommand{
	{name: "lint", args: []string{"lint", "@pack", "--grants", "@grants.json"}, targets: packTargets},
	{name: "compile", args: []string{"compile", "@pack", "--grants", "@grants.json", "-o", "@out"}, targets: packTargets,
		output: "out", existing: map[string]string{"out/.manifest": `{"revision": "old", "metadata": {"hcp": {}}}`, "out/hcp/authz/authz.rego": "package hcp.authz\n"}},
	{name: "build", args: []string{"build", "@pack", "--grants", "@grants.json", "-o", "@out.tar.gz"}, targets: packTargets,
		output: "out.tar.gz", existing: map[string]string{"out.tar.gz": "an earlier bundle"}},
	{name: "eval", args: []string{"eval", "@pack", "--grants", "@grants.json", "--input", "@input.json"}, targets: append(slices.Clone(packTargets), "input.json")},
	{name: "test", args: []string{"test", "@."}, targets: append(slices.Clone(packTargets), "t.cases.yaml")},
	{name: "matrix", args: []string{"matrix", "@pack", "--grants", "@grants.json"}, targets: packTargets},
	{name: "replay", args: []string{"replay", "@pack", "--grants", "@grants.json", "@input.json"}, targets: packTargets},
	{name: "matrix --diff", args: []string{"matrix", "--diff", "OLD", "@."}, targets: packTargets, discovers: true},
	{name: "compare", args: []string{"compare", "OLD", "@."}, targets: packTargets, discovers: true},
	{name: "export", args: []string{"export", "--harness", "claude-code", "--subject", "role:member", "-o", "@out.json", "@pack", "--grants", "@grants.json"}, targets: packTargets,
		output: "out.json", existing: map[string]string{"out.json": `{"permissions": {"allow": ["an earlier file"]}}`}},
}

// applies says whether a hostile kind of target is bad input for c. Some
// are not: a case file that is missing or a folder is no case file, a
// *.json that discovery does not take for a grant file is none, and any
// JSON document is a decision input (garbage is decided, see
// TestEvalDecidesGarbage). The 30 MB string runs once a command on the
// files that only it reads, and on every file under lint.
func (c hostileCommand) applies(target, kind string) bool {
	switch {
	case target == "t.cases.yaml" && (kind == kindMissing || kind == kindDirectory):
		return false
	case c.discovers && target == "grants.json" && slices.Contains([]string{kindMissing, kindDirectory, kindEmpty, kindArray}, kind):
		return false
	case target == "input.json" && kind == kindArray:
		return false
	case kind == kindHuge && c.name != "lint":
		return target == c.targets[len(c.targets)-1]
	}
	return true
}

// fixture writes the good files (and an earlier output, if asked) into a
// new folder, and an old version for matrix --diff into another.
func fixture(t *testing.T, existing map[string]string) (dir, old string) {
	t.Helper()
	dir, old = t.TempDir(), t.TempDir()
	treetest.Write(t, dir, goodFiles)
	treetest.Write(t, dir, existing)
	treetest.Write(t, old, map[string]string{"pack/manifest.json": goodFiles["pack/manifest.json"], "pack/policy.json": goodFiles["pack/policy.json"], "grants.json": goodFiles["grants.json"]})
	return dir, old
}

// argsFor is the command line for the fixture in dir.
func (c hostileCommand) argsFor(dir, old string) []string {
	args := slices.Clone(c.args)
	for i, a := range args {
		if path, ok := strings.CutPrefix(a, "@"); ok {
			args[i] = filepath.Join(dir, path)
		} else if a == "OLD" {
			args[i] = old
		}
	}
	return args
}

// existingFor is the earlier output that the n-th run of c starts from:
// none on even runs, c.existing on odd ones.
func (c hostileCommand) existingFor(n int) (string, map[string]string) {
	if c.output == "" {
		return "", nil
	}
	if n%2 == 0 {
		return "no output", nil
	}
	return "earlier output", c.existing
}

// TestGoodFixture runs every command on the good files, from no output
// and from an earlier one: each succeeds, so that a refusal in
// TestHostileFiles comes from the hostile file alone.
func TestGoodFixture(t *testing.T) {
	for _, c := range hostileCommands {
		for n := range 2 {
			dir, old := fixture(t, nil)
			if _, existing := c.existingFor(n); existing != nil {
				treetest.Write(t, dir, existing)
			}
			o := runInProcess(t, 0, c.argsFor(dir, old)...)
			if o.code != exitOK {
				t.Fatalf("%s: exit %d on the good files; stderr:\n%s", c.name, o.code, o.stderr)
			}
			if c.output != "" && snapshot(t, dir)[c.output] == "" {
				t.Fatalf("%s: no %s written", c.name, c.output)
			}
		}
	}
}

// TestHostileFiles runs every command with each hostile file in place of
// each file it reads, one run at a time. Under -short each command meets
// each kind of hostile file once, in the first file it applies to.
func TestHostileFiles(t *testing.T) {
	runs := 0
	met := map[string]bool{}
	for _, c := range hostileCommands {
		n := 0
		for _, target := range c.targets {
			for _, kind := range hostileKinds(target) {
				if !c.applies(target, kind) || testing.Short() && met[c.name+" "+kind] {
					continue
				}
				met[c.name+" "+kind] = true
				state, existing := c.existingFor(n)
				n++
				name := strings.Join(slices.DeleteFunc([]string{c.name, target, kind, state}, func(s string) bool { return s == "" }), "/")
				t.Run(name, func(t *testing.T) { checkHostile(t, c, target, kind, existing) })
				runs++
			}
		}
	}
	t.Logf("%d hostile runs", runs)
}

// checkHostile runs c with a hostile target and checks the outcome: exit
// 2, nothing on stdout, a message that names the file (at line:col where
// the kind has a place), and every file as it was.
func checkHostile(t *testing.T, c hostileCommand, target, kind string, existing map[string]string) {
	dir, old := fixture(t, existing)
	size := placeHostile(t, dir, target, kind)
	before := snapshot(t, dir)
	o := runInProcess(t, size, c.argsFor(dir, old)...)
	if o.code != exitBadInput {
		t.Fatalf("exit %d, want %d; stdout:\n%.500s\nstderr:\n%.500s", o.code, exitBadInput, o.stdout, o.stderr)
	}
	if o.stdout != "" {
		t.Errorf("stdout not empty:\n%.500s", o.stdout)
	}
	name := filepath.ToSlash(filepath.Join(dir, target))
	if !strings.Contains(o.stderr, name) {
		t.Errorf("stderr does not name %s:\n%.500s", name, o.stderr)
	}
	at := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `:[0-9]+:[0-9]+: \S`)
	if positioned(kind) && !at.MatchString(o.stderr) {
		t.Errorf("stderr has no line %s:LINE:COL: message:\n%.500s", name, o.stderr)
	}
	after := snapshot(t, dir)
	for path, sum := range after {
		if before[path] != sum {
			t.Errorf("%s was written or changed", path)
		}
	}
	for path := range before {
		if _, ok := after[path]; !ok {
			t.Errorf("%s was removed", path)
		}
	}
}
