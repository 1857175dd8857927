package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// Hostile input files (issue 8): every command that reads packs or grants
// must refuse each of them with exit 2 and a message that names the file
// (at line:col where the problem has a place), without a panic, without
// writing or touching any output, in bounded allocation. Each runs
// in-process, one at a time, so that runtime.MemStats counts what the run
// allocates; a few run the real binary too (the test binary as hcp-rego,
// put on PATH by testscript.Main) for the process's own exit code. No
// bound is a time: a loaded machine makes any run slow.

// The good files of a fixture: one pack, one grant file, a decision input
// and a case file that names the pack and the grant file.
var goodFiles = map[string]string{
	"pack/manifest.json": `{"id": "ledger", "commands": {"transfer": {"cli": ["ledger", "transfer", "{amount}", "--confirm"]}, "balance": {}}}`,
	"pack/policy.json":   `{"surface_id": "ledger", "version": 1, "verbs": {"transfer": {"operation": "write", "privacy": {"land": "personal"}, "confirm": true}, "balance": {"operation": "read", "privacy": {"land": "personal"}}}}`,
	"grants.json":        `{"version": 1, "grants": [{"subject": "role:member", "pack_id": "ledger", "capabilities": ["verb.exec.read", "verb.exec.write"]}]}`,
	"input.json":         `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "ledger", "verb_key": "balance", "owner": "bob"}`,
	"t.cases.yaml":       "packs: [pack]\ngrants: [grants.json]\ncases:\n  - name: a member reads her balance\n    input: {principal: {id: bob, roles: [member]}, pack_id: ledger, verb_key: balance, owner: bob}\n    want: {code: allowed}\n",
}

// topKey is the member each kind of file is about, so that a hostile file
// still reads as that kind of file (discovery takes a *.json file that
// mentions "grants" for a broken grant file).
var topKey = map[string]string{
	"pack/manifest.json": "id",
	"pack/policy.json":   "surface_id",
	"grants.json":        "grants",
	"input.json":         "principal",
	"t.cases.yaml":       "cases",
}

// The kinds of hostile file. missing and directory have no position;
// every other kind is refused at a line and column.
const (
	kindMissing   = "missing"
	kindDirectory = "directory"
	kindEmpty     = "empty"
	kindArray     = "[]"
	kindInvalid   = "invalid JSON"
	kindNaN       = "NaN"
	kindInfinity  = "Infinity"
	kindBadUTF8   = "invalid UTF-8"
	kindDuplicate = "duplicate keys"
	kindDeep      = "200k-deep nesting"
	kindHuge      = "30 MB string"
	kindVersion   = "wrong version"
	kindConfirm   = "unknown confirm value"
	kindNoID      = "manifest without id"
)

// hostileKinds lists the kinds that apply to a target file.
func hostileKinds(target string) []string {
	kinds := []string{kindMissing, kindDirectory, kindEmpty, kindArray, kindInvalid, kindNaN, kindInfinity, kindBadUTF8, kindDuplicate, kindDeep, kindHuge}
	switch target {
	case "pack/policy.json":
		kinds = append(kinds, kindVersion, kindConfirm)
	case "grants.json":
		kinds = append(kinds, kindVersion)
	case "pack/manifest.json":
		kinds = append(kinds, kindNoID)
	}
	return kinds
}

// hostileContent is the content of a hostile file of a kind; nil for
// missing and directory, which are no content.
func hostileContent(kind, target string) []byte {
	key := `"` + topKey[target] + `"`
	good := goodFiles[target]
	switch kind {
	case kindEmpty:
		return []byte{}
	case kindArray:
		return []byte("[]")
	case kindInvalid:
		return []byte("{" + key + ": [")
	case kindNaN:
		return []byte("{" + key + ": NaN}")
	case kindInfinity:
		return []byte("{" + key + ": -Infinity}")
	case kindBadUTF8:
		return []byte("{" + key + ": \"\xc3\x28\"}")
	case kindDuplicate:
		return []byte("{" + key + ": [], " + strings.TrimPrefix(good, "{"))
	case kindDeep:
		return []byte("{" + key + ": " + strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000) + "}")
	case kindHuge:
		return slices.Concat([]byte("{"+key+": \""), hugeString(), []byte("\"}"))
	case kindVersion:
		return []byte(strings.Replace(good, `"version": 1`, `"version": 2`, 1))
	case kindConfirm:
		return []byte(strings.Replace(good, `"confirm": true`, `"confirm": "sometimes"`, 1))
	case kindNoID:
		return []byte(strings.Replace(good, `"id": "ledger", `, "", 1))
	}
	return nil
}

// hugeString is the 30 MB string value, made once.
var hugeString = sync.OnceValue(func() []byte { return bytes.Repeat([]byte("a"), 30<<20) })

// positioned reports whether a kind of file is refused at a line:col.
func positioned(kind string) bool { return kind != kindMissing && kind != kindDirectory }

// placeHostile replaces target under dir by a hostile file of kind and
// returns its size.
func placeHostile(t *testing.T, dir, target, kind string) int {
	t.Helper()
	path := filepath.Join(dir, target)
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	switch kind {
	case kindMissing:
		return 0
	case kindDirectory:
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		return 0
	}
	content := hostileContent(kind, target)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return len(content)
}

// snapshot maps every file and folder under dir to a digest of its
// content ("dir" for a folder, its target for a symbolic link), so that a
// run that writes, removes or changes anything shows. A file over 1 MiB
// (a hostile input, never an output) is known by its size and
// modification time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case d.IsDir():
			out[rel] = "dir"
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			// Known by where it points: a fixture's links point inside
			// it, where what they name is listed itself (or is nothing).
			target, err := os.Readlink(path)
			out[rel] = "link to " + target
			return err
		}
		if info, err := d.Info(); err == nil && info.Size() > 1<<20 {
			out[rel] = fmt.Sprint(info.Size(), info.ModTime())
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Bounds on one run's allocation, generous, as guards against a blow-up.
// What a run may allocate grows with the hostile file: a 30 MB string
// costs some 165 MiB in JSON (read, scanned, unquoted) and 285 MiB in
// YAML (whose parser builds its node tree before hcp-rego sees a value).
const (
	baseAllocation = 32 << 20 // bytes a run may allocate whatever its input
	allocPerByte   = 12       // and per byte of the hostile file
)

// raceBuilt reports whether the test binary has the race detector,
// which moves allocations to the heap: runs then get four times the
// allocation.
var raceBuilt = sync.OnceValue(func() bool {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "-race" {
				return s.Value == "true"
			}
		}
	}
	return false
})

// hangAfter is when a test gives up on what has not ended (runBinary
// kills its process): a hang breaker, far past what any run takes, not a
// bound on how long one may take.
const hangAfter = 5 * time.Minute

// maxAllocation bounds what one run with a hostile file of size bytes
// may allocate.
func maxAllocation(size int) uint64 {
	limit := uint64(baseAllocation + allocPerByte*size)
	if raceBuilt() {
		limit *= 4
	}
	return limit
}

// outcome is what one run gave.
type outcome struct {
	code           int
	stdout, stderr string
	allocated      uint64 // bytes; in-process runs only
}

// runInProcess runs the command line as main would, with empty stdin,
// and fails the test when it panics or allocates more than the bound for
// an input of inputSize bytes. It must not run beside other tests: the
// allocation count is the process's.
func runInProcess(t *testing.T, inputSize int, args ...string) outcome {
	t.Helper()
	return runWithin(t, maxAllocation(inputSize), args...)
}

// runWithin is runInProcess with its own bound on what the run may
// allocate: the bytes runtime.MemStats counts as allocated during the run
// (TotalAlloc), which no peak of the heap can exceed.
func runWithin(t *testing.T, limit uint64, args ...string) outcome {
	t.Helper()
	var out, errOut bytes.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code := run(args, streams{in: strings.NewReader(""), out: &out, err: &errOut})
	o := outcome{code: code, stdout: out.String(), stderr: errOut.String()}
	runtime.ReadMemStats(&after)
	o.allocated = after.TotalAlloc - before.TotalAlloc
	t.Logf("hcp-rego %.100s: exit %d, %d MiB allocated", strings.Join(args, " "), o.code, o.allocated>>20)
	o.checkNoPanic(t, args)
	if o.allocated > limit {
		t.Errorf("hcp-rego %s allocated %d MiB, more than %d MiB", strings.Join(args, " "), o.allocated>>20, limit>>20)
	}
	return o
}

// runBinary runs hcp-rego as its own process in dir, with stdin, and
// fails the test when the run panics, or hangs (hangAfter).
func runBinary(t *testing.T, dir, stdin string, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangAfter)
	defer cancel()
	cmd := exec.CommandContext(ctx, "hcp-rego", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("hcp-rego %s had not ended after %v: killed", strings.Join(args, " "), hangAfter)
	}
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatalf("hcp-rego %s: %v", strings.Join(args, " "), err)
	}
	o := outcome{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
	o.checkNoPanic(t, args)
	return o
}

// checkNoPanic fails the test on a panic.
func (o outcome) checkNoPanic(t *testing.T, args []string) {
	t.Helper()
	if strings.Contains(o.stderr, "panic:") || strings.Contains(o.stderr, "goroutine ") {
		t.Fatalf("hcp-rego %s panicked:\n%.2000s", strings.Join(args, " "), o.stderr)
	}
}

// aliasedCases is a case file whose one case's input holds some 900,000
// values that alias expansion adds (110 + 1,110 + 11,110 + 111,110 from
// *a to *e, then 777,777 from seven *e), under the limit of 1,048,576
// that one file could hold alone.
func aliasedCases() string {
	var b strings.Builder
	b.WriteString("packs: [pack]\ngrants: [grants.json]\ncases:\n  - name: aliases\n    want: {code: allowed}\n")
	b.WriteString("    input:\n      principal: {id: bob, roles: [member]}\n      pack_id: ledger\n      verb_key: balance\n      owner: bob\n      args:\n")
	b.WriteString("        a: &a [" + strings.Repeat("x, ", 9) + "x]\n")
	for prev := byte('a'); prev < 'e'; prev++ {
		name := prev + 1
		b.WriteString(fmt.Sprintf("        %c: &%c [%s*%c]\n", name, name, strings.Repeat("*"+string(prev)+", ", 9), prev))
	}
	b.WriteString("        f: [" + strings.Repeat("*e, ", 6) + "*e]\n")
	return b.String()
}

// TestHostileAliasesAcrossFiles gives test case files that each stay
// under the limit of alias expansion but together pass it (issue 15: 48
// such files took hcp-rego test to 3.5 GB). 8 files keep the test
// affordable while a run that bounds each file alone allocates far past
// the bound: exit 2 at the alias where the run's budget ran out, the
// limit named.
func TestHostileAliasesAcrossFiles(t *testing.T) {
	dir, _ := fixture(t, nil)
	files := map[string]string{}
	for i := range 8 {
		files[fmt.Sprintf("a%d.cases.yaml", i)] = aliasedCases()
	}
	treetest.Write(t, dir, files)
	o := runWithin(t, yamlBound, "test", dir)
	if o.code != exitBadInput || o.stdout != "" || !regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(filepath.Join(dir, "a"))+`[0-9]\.cases\.yaml:\d+:\d+: alias \*e: .*1048576`).MatchString(o.stderr) {
		t.Errorf("exit %d, stdout %.300q, stderr %.500q; want exit 2 and a case file's line:col naming the limit of 1048576 values", o.code, o.stdout, o.stderr)
	}
}

// yamlBound is what refusing the case files may allocate: one file's
// expansion held, and the base.
const yamlBound = 512 << 20
