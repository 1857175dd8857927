package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// largeGrants is the fixture's grant file with 1,200 more grants after
// its own, each for a tenant of a long name: some 1.2 MB.
func largeGrants() string {
	var b strings.Builder
	b.WriteString(`{"version": 1, "grants": [{"subject": "role:member", "pack_id": "ledger", "capabilities": ["verb.exec.read", "verb.exec.write"]}`)
	for i := range 1200 {
		fmt.Fprintf(&b, `,`+"\n"+`{"subject": "role:member", "tenant": "%s%04d", "pack_id": "ledger", "verb_key": "balance", "capabilities": ["verb.exec.read"]}`, strings.Repeat("t", 900), i)
	}
	b.WriteString("]}\n")
	return b.String()
}

// TestSourceLimitOnEveryCommand runs every command that reads packs and
// grant files on a grant file larger than --max-source-bytes 1MiB: each
// refuses it with exit 2, once, at the line:col of its byte past the
// limit, naming the flag; with the flag raised, each runs.
func TestSourceLimitOnEveryCommand(t *testing.T) {
	grants := largeGrants()
	past := 1 << 20 // the offset of the byte past 1 MiB
	line := 1 + strings.Count(grants[:past], "\n")
	col := past - strings.LastIndexByte(grants[:past], '\n')
	refusal := regexp.MustCompile(fmt.Sprintf(`(?m)^.*grants\.json:%d:%d: more bytes than the limit of 1 MiB for the files of one run; --max-source-bytes raises it$`, line, col))
	commands := slices.Clone(hostileCommands)
	commands = append(commands, hostileCommand{name: "permissions", args: []string{"permissions", "@pack", "--grants", "@grants.json", "--input", "@listing.json"}})
	for _, c := range commands {
		dir, old := fixture(t, map[string]string{
			"grants.json":  grants,
			"listing.json": `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "ledger", "owner": "bob"}`,
		})
		args := c.argsFor(dir, old)
		o := runOutcome(append(slices.Clone(args), "--max-source-bytes", "1MiB"))
		if o.code != exitBadInput || !refusal.MatchString(o.stderr) || strings.Count(o.stderr, "--max-source-bytes") != 1 {
			t.Errorf("%s under 1MiB: exit %d, stderr %.600q; want exit 2 and the flag named once, at grants.json:%d:%d", c.name, o.code, o.stderr, line, col)
		}
		if o := runOutcome(append(slices.Clone(args), "--max-source-bytes", "8MiB")); o.code != 0 {
			t.Errorf("%s under 8MiB: exit %d, stderr %.600q; want it to run", c.name, o.code, o.stderr)
		}
	}
}

// runOutcome runs hcp-rego in-process.
func runOutcome(args []string) outcome {
	var out, errOut bytes.Buffer
	code := run(args, streams{in: strings.NewReader(""), out: &out, err: &errOut})
	return outcome{code: code, stdout: out.String(), stderr: errOut.String()}
}

// TestSourceLimitRefusesOnce gives lint three grant files that pass the
// run's limit together, and a pack: one line says so, at the second
// file's byte past the limit; the third file and the pack are not read,
// so that nothing else is said of them.
func TestSourceLimitRefusesOnce(t *testing.T) {
	dir, _ := fixture(t, nil)
	half := largeGrants()[:600_000]
	half = half[:strings.LastIndex(half, ",\n")] + "]}\n" // some 600 KB
	treetest.Write(t, dir, map[string]string{"a.json": half, "b.json": half, "c.json": half})
	args := []string{"lint", filepath.Join(dir, "pack"), "--max-source-bytes", "1MiB"}
	for _, f := range []string{"a.json", "b.json", "c.json"} {
		args = append(args, "--grants", filepath.Join(dir, f))
	}
	o := runOutcome(args)
	past := 1<<20 - len(half)
	line := 1 + strings.Count(half[:past], "\n")
	col := past - strings.LastIndexByte(half[:past], '\n')
	want := fmt.Sprintf("%s:%d:%d: more bytes than the limit of 1 MiB for the files of one run; --max-source-bytes raises it\n", filepath.Join(dir, "b.json"), line, col)
	if o.code != exitBadInput || o.stderr != want {
		t.Errorf("exit %d, stderr %.600q; want exit 2 and\n%s", o.code, o.stderr, want)
	}
}

// TestSourceLimitFlag checks what --max-source-bytes takes.
func TestSourceLimitFlag(t *testing.T) {
	for _, tt := range []struct{ value, want string }{
		{"1023KiB", `"1023KiB": want a size from 1MiB to 1024GiB`},
		{"1025GiB", `"1025GiB": want a size from 1MiB to 1024GiB`},
		{"1.5GiB", `"1.5GiB": want a size such as 536870912, 512MiB or 1GiB`},
		{"-1", `want a size such as`},
	} {
		o := runOutcome([]string{"lint", "--max-source-bytes", tt.value})
		if o.code != exitBadInput || !strings.Contains(o.stderr, tt.want) {
			t.Errorf("--max-source-bytes %s: exit %d, stderr %q; want exit 2 and %q", tt.value, o.code, o.stderr, tt.want)
		}
	}
	o := runOutcome([]string{"lint", "--max-source-bytes", "1MiB", "--max-source-bytes", "2MiB"})
	if o.code != exitBadInput || !strings.Contains(o.stderr, "given twice") {
		t.Errorf("given twice: exit %d, stderr %q", o.code, o.stderr)
	}
}
