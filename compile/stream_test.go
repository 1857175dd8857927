package compile

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// writeGrantFile writes n grants shaped as an IdP exports them, one a
// line, and returns the file's path.
func writeGrantFile(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"version": 1, "grants": [` + "\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"subject": "principal:u%07d", "tenant": "t%05d", "pack_id": "pack-%04d", "verb_key": "op%02d.run", "capabilities": ["verb.exec.write"]}`, i, i%10_000, i%1000, i%50)
	}
	b.WriteString("\n]}\n")
	path := filepath.Join(dir, fmt.Sprintf("g%d.json", n))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// grantFileCost loads a grant file and returns what loading it allocated
// and what it keeps, in bytes, a grant.
func grantFileCost(t *testing.T, path string, n int) (allocated, kept float64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	grants, _, err := loadGrants(path, Limits{}.budget(), nil, 0)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(grants) != n {
		t.Fatalf("%d grants, want %d", len(grants), n)
	}
	runtime.KeepAlive(grants)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n), (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(n)
}

// TestGrantFileCostsAsManyBytesAGrant loads grant files of N and 2N
// grants: each grant costs what the last did, in what loading allocates
// and in what it keeps, and what it keeps is a Grant, not its tree (read
// whole, a grant file kept some 1.2 KB a grant; a build of a million
// grants peaked at 4 GB). That the parse itself holds no more than one
// grant's tree at a time is TestStreamHoldsOneElement's.
func TestGrantFileCostsAsManyBytesAGrant(t *testing.T) {
	const n = 20_000
	dir := t.TempDir()
	small, large := writeGrantFile(t, dir, n), writeGrantFile(t, dir, 2*n)
	allocN, keptN := grantFileCost(t, small, n)
	alloc2N, kept2N := grantFileCost(t, large, 2*n)
	t.Logf("a grant: %.0f bytes allocated and %.0f kept of %d grants, %.0f and %.0f of %d", allocN, keptN, n, alloc2N, kept2N, 2*n)
	// A grant is some 130 bytes of JSON; its schema check allocates
	// some 2.4 KB and its parse 1.5 KB, which the collector takes back.
	if alloc2N > 6144 || alloc2N > 1.15*allocN {
		t.Errorf("loading allocated %.0f bytes a grant of %d grants, %.0f of %d: want at most 6 KiB, alike", alloc2N, 2*n, allocN, n)
	}
	if kept2N > 320 || kept2N > 1.15*keptN {
		t.Errorf("loading kept %.0f bytes a grant of %d grants, %.0f of %d: want at most 320, alike", kept2N, 2*n, keptN, n)
	}
}

// TestLimitsRefuseOnce reads three grant files that pass the run's limit
// of bytes together: the run is refused once, at the byte past the limit,
// the hint named, and the file after it is not read. Raised, the limit
// lets the run through; the limits of values are a 16th and a 64th of
// it.
func TestLimitsRefuseOnce(t *testing.T) {
	dir := t.TempDir()
	treetest.Write(t, dir, map[string]string{
		"pack/manifest.json": `{"id": "pack-0000", "commands": {"op00.run": {}}}`,
		"pack/policy.json":   `{"surface_id": "pack-0000", "verbs": {"op00.run": {"operation": "write", "privacy": {"land": "personal"}}}}`,
	})
	t.Chdir(dir)
	var files []string
	for range 3 {
		path := writeGrantFile(t, dir, 3000+len(files)) // some 390 KB each
		files = append(files, filepath.Base(path))
	}
	limits := Limits{Bytes: 1 << 20, Hint: "--max-source-bytes raises it"}
	err := limits.Load([]string{"pack"}, files).Err()
	data, _ := os.ReadFile(files[2])
	first, _ := os.Stat(files[0])
	second, _ := os.Stat(files[1])
	past := int(1<<20 - first.Size() - second.Size()) // the offset of the byte past the limit
	pos := document.PosAt(data, past)
	want := fmt.Sprintf("%s:%d:%d: more bytes than the limit of 1 MiB for the files of one run; --max-source-bytes raises it", files[2], pos.Line, pos.Col)
	if err == nil || err.Error() != want {
		t.Fatalf("three files past the limit:\n got %v\nwant %s", err, want)
	}
	limits.Bytes = 2 << 20
	if err := limits.Load([]string{"pack"}, files).Err(); err != nil {
		t.Fatalf("the limit raised: %v", err)
	}
	// 1 MiB holds 65,536 values: 200,000 zeros, 400 KB, do not fit. The
	// 65,537th value is the 65,535th zero.
	treetest.Write(t, dir, map[string]string{"z.json": `{"grants": [` + strings.TrimSuffix(strings.Repeat("0,", 200_000), ",") + "]}"})
	limits.Bytes = 1 << 20
	err = limits.Load([]string{"pack"}, []string{"z.json"}).Err()
	want = fmt.Sprintf("z.json:1:%d: more values than the limit of 65536 for the JSON files of one run; --max-source-bytes raises it", 13+2*65_534)
	if err == nil || err.Error() != want {
		t.Fatalf("200,002 values under a limit of 65,536:\n got %v\nwant %s", err, want)
	}
}
