package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// hostileName holds what a file or folder name may hold to attack the
// output: a line break followed by a GitHub workflow command, an escape
// that colours the terminal, a bell, a carriage return and a CSI of its
// own (U+009B, which some terminals read as ESC [).
const hostileName = "x\n::warning file=x::pwned\x1b[31m\a\r\u009bz"

// hostileTree is a repository whose pack folder, case file, grant file
// and Rego test file are named with hostileName, and whose case names and
// printed values hold it too: a case that fails, a row that no case
// reaches, a grant that gives nothing and a grant of one tenant's only.
func hostileTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	n := hostileName
	treetest.Write(t, dir, map[string]string{
		"packs/" + n + "/manifest.json": `{ "id": "shop", "commands": { "browse": {}, "buy": {}, "sell": {} } }`,
		"packs/" + n + "/policy.json": `{ "surface_id": "shop", "verbs": {
			"browse": { "operation": "read", "privacy": { "land": "personal" } },
			"buy": { "operation": "write", "privacy": { "land": "personal" } },
			"sell": { "operation": "write", "privacy": { "land": "personal" }, "confirm": true } } }`,
		n + ".json": `{ "grants": [
			{ "subject": "role:buyer", "pack_id": "shop", "capabilities": ["verb.exec.read"] },
			{ "subject": "role:nobody", "pack_id": "shop", "capabilities": ["verb.exec.read"] },
			{ "subject": "role:buyer", "tenant": "acme", "pack_id": "shop", "capabilities": ["verb.exec.write"] } ] }`,
		n + ".cases.yaml": "cases:\n" +
			"  - name: a buyer browses\n" +
			"    input: { principal: { id: ann, roles: [buyer] }, pack_id: shop, verb_key: browse, owner: ann }\n" +
			"    want: { code: allowed }\n" +
			"  - name: \"a stranger buys\\n::warning file=x::case\\e[31m\\a\\r\"\n" +
			"    input: { principal: { id: bo }, pack_id: shop, verb_key: buy, owner: bo }\n" +
			"    want: { code: allowed, source: { row: \"x\\n::warning file=x::want\\e[31m\" } }\n",
		n + "_test.rego": "package shop_test\n\n" +
			"test_prints if {\n\tprint(\"one\\n::warning file=x::printed\\u001b[31m\\u0007\")\n\tfalse\n}\n",
	})
	return dir
}

// TestHostileNamesPrintEscaped runs lint, test in each format, matrix and
// eval on a repository whose file and folder names, case names and
// values hold line breaks, workflow commands and escapes: no line of
// stdout or stderr is started by an input (only the workflow commands
// test --format github writes itself start with "::"), and no control
// character reaches either raw but the line feed (SPEC §5). JSON and
// JUnit are structured: JSON escapes every C0 control, JUnit's XML
// escapes line breaks in attributes and holds no character XML 1.0
// forbids.
func TestHostileNamesPrintEscaped(t *testing.T) {
	dir := hostileTree(t)
	pack := filepath.Join(dir, "packs", hostileName)
	grants := filepath.Join(dir, hostileName+".json")
	input := filepath.Join(t.TempDir(), "input.json")
	treetest.Write(t, filepath.Dir(input), map[string]string{"input.json": `{ "principal": { "id": "ann", "roles": ["buyer"] }, "pack_id": "shop", "verb_key": "browse", "owner": "ann" }`})
	bad := t.TempDir() // the same names, each file at fault
	treetest.Write(t, bad, map[string]string{
		"packs/" + hostileName + "/manifest.json": `{ "id": "shop", "commands": { "browse": {} } }`,
		"packs/" + hostileName + "/policy.json":   `{ "surface_id": "shop", "verbs": { "browse": { "operation": "read", "privacy": { "lnd": "personal" } } } }`,
		hostileName + ".cases.yaml":               "packs: [" + strconv.Quote("packs/"+hostileName) + ", " + strconv.Quote("gone"+hostileName) + "]\ncases: []\nunknown: 1\n",
	})
	runs := []struct {
		name    string
		args    []string
		github  int  // how many workflow commands the run writes itself
		c1      bool // whether a C1 control may stand raw (structured JSON)
		wantOut string
	}{
		{name: "lint", args: []string{"lint", filepath.Join(dir, "packs"), "--grants", grants}},
		{name: "lint, findings", args: []string{"lint", filepath.Join(bad, "packs")}},
		{name: "test", args: []string{"test", dir, "--coverage"}, wantOut: "FAIL"},
		{name: "test --format github", args: []string{"test", dir, "--coverage", "--format", "github"}, github: 2 + 2},
		{name: "test --format json", args: []string{"test", dir, "--coverage", "--format", "json"}, c1: true},
		{name: "test --format junit", args: []string{"test", dir, "--coverage", "--format", "junit"}},
		{name: "test, bad files", args: []string{"test", bad}},
		{name: "test --format github, bad files", args: []string{"test", bad, "--format", "github"}},
		{name: "matrix", args: []string{"matrix", pack, "--grants", grants}},
		{name: "matrix --format markdown", args: []string{"matrix", pack, "--grants", grants, "--format", "markdown"}},
		{name: "eval --format pretty", args: []string{"eval", pack, "--grants", grants, "--input", input, "--format", "pretty", "--explain"}},
		// Names given on the command line, in the system's own errors.
		{name: "build -o into no folder", args: []string{"build", pack, "--grants", grants, "-o", filepath.Join(dir, "gone", hostileName)}},
		{name: "eval --bundle missing", args: []string{"eval", "--bundle", hostileName, "--input", input}},
		{name: "eval --input missing", args: []string{"eval", pack, "--input", hostileName}},
		{name: "pull -o into no folder", args: []string{"pull", "127.0.0.1:1/x:y", "-o", filepath.Join(dir, "gone", hostileName)}},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			o := runInProcess(t, 0, r.args...)
			if o.stdout+o.stderr == "" || !strings.Contains(o.stdout, r.wantOut) {
				t.Fatalf("exit %d, stdout %q, stderr %q: want output holding %q", o.code, o.stdout, o.stderr, r.wantOut)
			}
			checkEscaped(t, "stdout", o.stdout, r.github, r.c1)
			checkEscaped(t, "stderr", o.stderr, 0, false)
		})
	}
}

// ours is a workflow command that test --format github writes: an
// annotation whose file property is a name quoted, as these names are.
var ours = regexp.MustCompile(`^::(error|warning) file="`)

// checkEscaped fails the test when a line of out starts with "::" but is
// not one of the github workflow commands written, or out holds a control
// character other than a line feed (a C1 one only when c1 allows it).
func checkEscaped(t *testing.T, stream, out string, github int, c1 bool) {
	t.Helper()
	commands := 0
	for i, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "::") {
			continue
		}
		if commands++; !ours.MatchString(line) || commands > github {
			t.Errorf("%s line %d is started by an input: %q", stream, i+1, line)
		}
	}
	if commands != github {
		t.Errorf("%s holds %d workflow commands, want %d:\n%s", stream, commands, github, out)
	}
	for i, r := range out {
		if (r < 0x20 && r != '\n') || r == 0x7f || (!c1 && r >= 0x80 && r < 0xa0) {
			t.Errorf("%s holds the control character %U raw at byte %d: %q", stream, r, i, out[max(0, i-40):min(len(out), i+40)])
			return
		}
	}
}
