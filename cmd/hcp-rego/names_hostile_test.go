package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
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

// TestHostileNamesPrintEscaped runs lint, test in each format, matrix,
// eval, replay, build and compile on a repository whose file and folder
// names, case names and values hold line breaks, workflow commands and
// escapes (a revision too): no line of stdout or stderr is started by an
// input (only the workflow commands test --format github writes itself
// start with "::"), and no control character reaches either raw but the
// line feed (docs/reliability.md, "Names cannot write output of their
// own"). JSON and JUnit are structured: JSON escapes every
// C0 control, JUnit's XML escapes line breaks in attributes and holds no
// character XML 1.0 forbids.
func TestHostileNamesPrintEscaped(t *testing.T) {
	dir := hostileTree(t)
	pack := filepath.Join(dir, "packs", hostileName)
	grants := filepath.Join(dir, hostileName+".json")
	input := filepath.Join(t.TempDir(), "input.json")
	treetest.Write(t, filepath.Dir(input), map[string]string{"input.json": `{ "principal": { "id": "ann", "roles": ["buyer"] }, "pack_id": "shop", "verb_key": "browse", "owner": "ann" }`})
	// A decision log whose last line is not an event.
	log := filepath.Join(t.TempDir(), hostileName+".log")
	treetest.Write(t, filepath.Dir(log), map[string]string{filepath.Base(log): `{"decision_id": "d1", "path": "hcp/authz/decision", "input": { "principal": { "id": "ann", "roles": ["buyer"] }, "pack_id": "shop", "verb_key": "browse", "owner": "ann" }, "result": {"allow": false, "code": "capability_required"}}` + "\nnot an event\n"})
	out := t.TempDir()   // where build and compile write
	empty := t.TempDir() // a version with no packs, for compare
	bad := t.TempDir()   // the same names, each file at fault
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
		{name: "replay", args: []string{"replay", pack, "--grants", grants, log}},
		{name: "compare", args: []string{"compare", empty, dir}, wantOut: "added"},
		{name: "compare --format markdown", args: []string{"compare", empty, dir, "--format", "markdown"}, wantOut: "added"},
		{name: "compare --format json", args: []string{"compare", empty, dir, "--format", "json"}, c1: true, wantOut: "added"},
		{name: "compare, bad files", args: []string{"compare", dir, bad}},
		{name: "build", args: []string{"build", pack, "--grants", grants, "--revision", hostileName, "-o", filepath.Join(out, hostileName+".tar.gz")}},
		{name: "compile", args: []string{"compile", pack, "--grants", grants, "--revision", hostileName, "-o", filepath.Join(out, hostileName)}},
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

// leadNames are printable names that, printed first on a line as they
// are, would start a GitHub workflow command or read as one of
// hcp-rego's own result lines (docs/reliability.md, "Names cannot write
// output of their own").
var leadNames = []string{"::error::x", "::set-output name=a::b", "99 passed, 0 failed", "ok: 9 packs (9 rows), 0 grant files (0 grants)", "PASS forged", "FAIL forged", "note: forged"}

// The faults a leadTree can hold.
const (
	leadGood     = "good"
	leadFindings = "findings" // lint findings: a manifest lacks a verb, a grant names an unknown pack
	leadInvalid  = "invalid"  // schema errors: a policy misspells a field, a case file holds an unknown one
)

// leadTree is a repository whose pack folders, grant files, case files,
// decision logs and decision inputs are named with leadNames, and whose
// keys, triggers, subjects, tenants, case names and decision ids are
// leadNames too: every case fails, and each log ends with a line that is
// not JSON. fault says what is wrong with its files, if anything.
func leadTree(t *testing.T, fault string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{}
	var commands, verbs, triggers, stimuli, cases, events []string
	for i, n := range leadNames {
		q := strconv.Quote(n)
		commands = append(commands, q+": {}")
		verbs = append(verbs, fmt.Sprintf(`%s: { "operation": %q, "privacy": { "land": "personal" }, "confirm": %t }`, q, []string{"read", "write"}[i%2], i%2 == 1))
		triggers = append(triggers, q)
		stimuli = append(stimuli, q+`: { "operation": "read", "privacy": { "land": "personal" } }`)
		cases = append(cases, "  - name: "+q+"\n    input: { principal: { id: ann, roles: [buyer] }, pack_id: p0, verb_key: "+q+", owner: ann }\n    want: { code: land_denied }\n")
		events = append(events, fmt.Sprintf(`{"decision_id": %s, "path": "hcp/authz/decision", "input": {"principal": {"id": "ann", "roles": [%s]}, "pack_id": "p0", "verb_key": %s, "owner": "ann"}, "result": {"allow": true, "code": "allowed"}}`, q, q, q))
	}
	for i, n := range leadNames {
		pack, manifest := "p"+strconv.Itoa(i), commands
		if fault == leadFindings {
			pack, manifest = "gone", commands[1:]
		}
		files[n+"/manifest.json"] = fmt.Sprintf(`{ "id": "p%d", "commands": { %s }, "stimulusTriggers": [%s] }`, i, strings.Join(manifest, ", "), strings.Join(triggers, ", "))
		policy := fmt.Sprintf(`{ "surface_id": "p%d", "verbs": { %s }, "stimuli": { %s } }`, i, strings.Join(verbs, ", "), strings.Join(stimuli, ", "))
		caseFile := "cases:\n" + strings.Join(cases, "")
		if fault == leadInvalid {
			policy = strings.Replace(policy, `"land"`, `"lnd"`, 1)
			caseFile += "unknown: 1\n"
		}
		files[n+"/policy.json"] = policy
		files[n+".cases.yaml"] = caseFile
		files[n+".json"] = fmt.Sprintf(`{ "grants": [
			{ "subject": %q, "pack_id": %q, "capabilities": ["verb.exec.read"] },
			{ "subject": "role:buyer", "tenant": %q, "pack_id": %q, "capabilities": ["verb.exec.write"] } ] }`, "role:"+n, pack, n, pack)
		files[n+".log"] = strings.Join(events, "\n") + "\n" + n + "\n"
		files[n+".input"] = `{ "principal": { "id": 1 }, "pack_id": "p0", "verb_key": "::error::x" }`
	}
	files["input.json"] = `{ "principal": { "id": "ann", "roles": ["buyer"] }, "pack_id": "p0", "verb_key": "::error::x", "owner": "bob" }`
	treetest.Write(t, dir, files)
	return dir
}

// TestLeadNamesStartNoLine runs the commands that print a name, a key or
// a value from an input, in a folder whose file and folder names, keys,
// subjects, tenants, case names and decision ids are printable but would
// start a workflow command ("::error::x") or forge a result line ("99
// passed, 0 failed", "ok: ...", "FAIL ...") if printed first on a line:
// no line of stdout or stderr starts with one of them, nor with "::" but
// for the annotations test --format github writes. Paths are relative to
// the folder, so that a name is the first thing a path holds.
func TestLeadNamesStartNoLine(t *testing.T) {
	first := leadNames[0]
	pack, grants := []string{first, "--grants", first + ".json"}, first+".json"
	var runs [][]string
	for _, format := range []string{"pretty", "github", "junit"} {
		runs = append(runs, []string{"test", ".", "--coverage", "--explain", "--format", format})
	}
	for _, n := range leadNames {
		runs = append(runs,
			[]string{"lint", n, "--grants", n + ".json"},
			[]string{"lint", "gone" + n},
			slices.Concat([]string{"eval"}, pack, []string{"--input", n + ".input", "--format", "pretty"}),
			[]string{"eval", "--bundle", n, "--input", "input.json"},
			[]string{"eval", "--bundle", n + ".log", "--input", "input.json"},
			slices.Concat([]string{"replay"}, pack, []string{n + ".log"}),
			slices.Concat([]string{"replay"}, pack, []string{n + ".missing.log"}),
			slices.Concat([]string{"build"}, pack, []string{"-o", n + ".tar.gz"}),
			slices.Concat([]string{"compile"}, pack, []string{"-o", n + ".out"}),
			[]string{"status", n},
		)
	}
	runs = append(runs,
		[]string{"lint", "ok"},
		[]string{"lint", "FAIL"},
		[]string{"matrix", "--diff", first, "."},
		[]string{"compare", first, "."},
		[]string{"compare", first, ".", "--format", "markdown"},
		slices.Concat([]string{"matrix"}, pack, []string{"--tenant", leadNames[1]}),
		slices.Concat([]string{"matrix"}, pack, []string{"--format", "markdown"}),
		slices.Concat([]string{"export", "--harness", "claude-code", "--subject", "role:" + first}, pack),
		slices.Concat([]string{"permissions"}, pack, []string{"--input", "input.json", "--format", "table"}),
		slices.Concat([]string{"eval"}, pack, []string{"--input", "input.json", "--format", "pretty", "--explain"}),
		[]string{"eval", "--bundle", grants, "--input", "input.json"},
	)
	for _, fault := range []string{leadGood, leadFindings, leadInvalid} {
		t.Run(fault, func(t *testing.T) {
			t.Chdir(leadTree(t, fault))
			for _, args := range runs {
				o := runWithin(t, 256<<20, args...) // matrix --diff decides every cell twice
				if o.stdout+o.stderr == "" {
					t.Errorf("hcp-rego %q: exit %d and no output", args, o.code)
				}
				checkLeads(t, args, "stdout", o.stdout)
				checkLeads(t, args, "stderr", o.stderr)
			}
		})
	}
}

// checkLeads fails the test when a line of out starts with one of
// leadNames, or with "::" but for an annotation of test --format github,
// or with a word a result line of ours starts with, then a name ("ok: no
// such pack folder").
func checkLeads(t *testing.T, args []string, stream, out string) {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		bad := strings.HasPrefix(line, "::") && !ourAnnotation.MatchString(line) ||
			strings.HasPrefix(line, "ok: no such") || strings.HasPrefix(line, "FAIL: no such")
		for _, n := range leadNames {
			bad = bad || strings.HasPrefix(line, n)
		}
		if bad {
			t.Errorf("hcp-rego %q: %s line %d is started by an input: %q", args, stream, i+1, line)
		}
	}
}

// ourAnnotation is a workflow command that test --format github writes.
var ourAnnotation = regexp.MustCompile(`^::(error|warning) file=[^,:]+,line=\d+`)
