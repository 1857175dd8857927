package compile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const spillPacks = "../testdata/packs"

// spillGrantLines are grants of the example packs, one a line, that a
// test's files draw from: pack-wide and scoped, every kind of subject,
// capabilities that fill a slot and one that does not.
var spillGrantLines = []string{
	`"subject": "principal:u%d", "pack_id": "mail", "verb_key": "mail.send", "capabilities": ["verb.exec.write"]`,
	`"subject": "principal:u%d", "pack_id": "mail", "verb_key": "mail.list", "capabilities": ["verb.exec.write", "verb.exec.read"]`,
	`"subject": "role:r%d", "pack_id": "workspace", "capabilities": ["verb.exec.read", "verb.exec.write"]`,
	`"subject": "role:r%d", "pack_id": "ledger", "stimulus": "payment_received", "capabilities": ["sense.enable"]`,
	`"subject": "principal:u%d", "pack_id": "ledger", "verb_key": "connect", "capabilities": ["pack.connect"]`,
	`"subject": "default", "pack_id": "mail", "verb_key": "mail.get", "capabilities": ["verb.exec.read"]`,
}

// spillTenants are the tenants the files draw from: plain ids, and ids
// that JSON, the holder key or the spill must carry exactly.
var spillTenants = []string{"acme", "globex", "initech", "t\u00e9n\u00e9", `q"uote`, "back\\slash", "<html>&", "tab\tbed", "\U0001F600", "", ""}

// writeSpillGrants writes files grant files of perFile grants each into
// dir, drawn at random from seed, and returns their paths.
func writeSpillGrants(t *testing.T, dir string, files, perFile int, seed uint64) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var paths []string
	for f := range files {
		var b strings.Builder
		b.WriteString("{\n\"version\": 1,\n\"grants\": [\n")
		for i := range perFile {
			if i > 0 {
				b.WriteString(",\n")
			}
			line := spillGrantLines[rng.IntN(len(spillGrantLines))]
			if strings.Contains(line, "%d") {
				line = fmt.Sprintf(line, rng.IntN(40))
			}
			if tenant := spillTenants[rng.IntN(len(spillTenants))]; tenant != "" {
				line += fmt.Sprintf(`, "tenant": %q`, tenant)
			}
			b.WriteString("{ " + line + " }")
		}
		b.WriteString("\n]\n}\n")
		path := filepath.ToSlash(filepath.Join(dir, fmt.Sprintf("g%d.json", f)))
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// inMemory builds the folder of o the way that holds every grant
// (shardGrants over the checked model), which a spilled build must
// match byte for byte.
func inMemory(t *testing.T, o BuildOptions, n int) {
	t.Helper()
	m, err := o.Limits.Checked(o.Packs, o.Grants)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writeFolder(o, m, len(m.grants), n, heldShards(m.grants, n)); err != nil {
		t.Fatal(err)
	}
}

// folderBytes is every file of dir, by name.
func folderBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = data
	}
	return files
}

// TestSpilledBuildIsTheBuild builds the same grants by the spill and by
// holding every grant: the folders are the same bytes, with one shard a
// bucket (8) and several (300, past spillBuckets), and the spill's folder
// is gone after.
func TestSpilledBuildIsTheBuild(t *testing.T) {
	for _, n := range []int{8, 300} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			grants := writeSpillGrants(t, dir, 3, 400, uint64(n))
			spilled := BuildOptions{Packs: []string{spillPacks}, Grants: grants, Output: filepath.Join(dir, "spilled")}
			built, err := buildSpilled(spilled, n)
			if err != nil {
				t.Fatalf("buildSpilled: %v", err)
			}
			if built.Grants != 1200 || len(built.Shards) != n || slices.Contains(built.Shards, "") {
				t.Fatalf("built %d grants, shards %q: want 1200 grants and %d revisions", built.Grants, built.Shards, n)
			}
			held := spilled
			held.Output = filepath.Join(dir, "held")
			inMemory(t, held, n)
			a, b := folderBytes(t, spilled.Output), folderBytes(t, held.Output)
			if len(a) != n+1 || len(b) != n+1 {
				t.Fatalf("folders of %d and %d files, want %d", len(a), len(b), n+1)
			}
			for name, data := range b {
				if !bytes.Equal(a[name], data) {
					t.Errorf("%s: the spilled build wrote other bytes than the build that holds every grant", name)
				}
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.Contains(e.Name(), "spill-") {
					t.Errorf("%s left behind", e.Name())
				}
			}
		})
	}
}

// TestSpillHoldsNoTenantGrant reads grant files with a spill: the model
// holds the grants without a tenant only, the spill counts the others,
// and every grant keeps its place in the run (Index).
func TestSpillHoldsNoTenantGrant(t *testing.T) {
	dir := t.TempDir()
	grants := writeSpillGrants(t, dir, 2, 300, 7)
	sp, err := newSpill(dir, "spill-*", 4)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.remove()
	m, err := Limits{spill: sp}.Checked([]string{spillPacks}, grants)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Checked([]string{spillPacks}, grants)
	if err != nil {
		t.Fatal(err)
	}
	want := tenantless(all.grants)
	if len(m.grants) != len(want) || len(want) == 0 || len(want) == len(all.grants) {
		t.Fatalf("the spilled model holds %d grants, want the %d of %d without a tenant", len(m.grants), len(want), len(all.grants))
	}
	for i, g := range m.grants {
		if g.Tenant != "" || g.Index != want[i].Index || g.Position() != want[i].Position() {
			t.Errorf("grant %d: tenant %q, index %d, position %d; want no tenant, %d, %d", i, g.Tenant, g.Index, g.Position(), want[i].Index, want[i].Position())
		}
	}
	if got := sp.spilled(0) + sp.spilled(1); got != len(all.grants)-len(want) {
		t.Errorf("spilled %d grants, want %d", got, len(all.grants)-len(want))
	}
}

// TestSpilledProblemsAreNamedAsBuild gives a sharded build grant files
// with a problem in a grant with a tenant, which the spill holds: the
// build is refused with the same problems, in the same words, as the
// unsharded build, and writes nothing.
func TestSpilledProblemsAreNamedAsBuild(t *testing.T) {
	bad := map[string]string{
		"unknown pack":     `{ "subject": "role:r", "tenant": "acme", "pack_id": "mial", "capabilities": ["verb.exec.read"] }`,
		"unknown verb":     `{ "subject": "role:r", "tenant": "acme", "pack_id": "mail", "verb_key": "mail.sned", "capabilities": ["verb.exec.read"] }`,
		"unknown stimulus": `{ "subject": "role:r", "tenant": "acme", "pack_id": "mail", "stimulus": "new_itme", "capabilities": ["sense.enable"] }`,
		"misfit":           `{ "subject": "role:r", "tenant": "acme", "pack_id": "mail", "verb_key": "mail.send", "capabilities": ["sense.enable"] }`,
		"duplicate key":    `{ "subject": "role:r", "tenant": "acme", "tenant": "globex", "pack_id": "mail", "capabilities": ["verb.exec.read"] }`,
		"schema":           `{ "subject": "role:r", "tenant": "acme", "pack_id": "mail", "capabilities": ["verb.exec.sudo"] }`,
	}
	for name, grant := range bad {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			good := `{ "subject": "role:r", "tenant": "acme", "pack_id": "mail", "capabilities": ["verb.exec.read"] }`
			text := "{\n\"version\": 1,\n\"grants\": [\n" + good + ",\n" + grant + ",\n" + good + "\n]\n}\n"
			path := filepath.ToSlash(filepath.Join(dir, "g.json"))
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			o := BuildOptions{Packs: []string{spillPacks}, Grants: []string{path}, Output: filepath.Join(dir, "shards")}
			if _, err := buildSpilled(o, 4); !errors.Is(err, errReadAgain) {
				t.Fatalf("buildSpilled: %v, want errReadAgain", err)
			}
			_, sharded := BuildShards(o, 4)
			_, plain := Build(BuildOptions{Packs: o.Packs, Grants: o.Grants, Output: filepath.Join(dir, "b.tar.gz")})
			if sharded == nil || plain == nil || sharded.Error() != plain.Error() {
				t.Fatalf("sharded build: %v\nunsharded: %v\nwant the same problems", sharded, plain)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("the folder holds %d entries, want the grant file alone", len(entries))
			}
		})
	}
}

// TestSpillForgetsARestartedRead spills a file's grants, then the file is
// read again from its start (grantReader.Restart): only the grants of the
// second read come back, and the count is the second read's.
func TestSpillForgetsARestartedRead(t *testing.T) {
	sp, err := newSpill(t.TempDir(), "spill-*", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.remove()
	grant := func(line int) *Grant {
		return &Grant{N: line, Line: line, Subject: "role:r", Tenant: "acme", PackID: "mail", Capabilities: []string{CapRead}}
	}
	sp.put(0, grant(1))
	sp.put(0, grant(2))
	sp.restart(0)
	sp.put(0, grant(3))
	if err := sp.finish(); err != nil {
		t.Fatal(err)
	}
	m, err := Checked([]string{spillPacks}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.grantFiles = []string{"g.json"}
	var lines []int
	err = sp.shards(m, func(_ int, grants []*Grant) error {
		for _, g := range grants {
			lines = append(lines, g.Line)
		}
		return nil
	})
	if err != nil || !slices.Equal(lines, []int{3}) || sp.spilled(0) != 1 {
		t.Fatalf("read back lines %v (%v), counted %d: want [3], 1", lines, err, sp.spilled(0))
	}
}

// TestSpillBesideALongName builds into a folder whose name is as long as
// a name may be: the spill's folder beside it still fits (its name is
// cut), so the build spills rather than reading every grant into memory.
func TestSpillBesideALongName(t *testing.T) {
	dir := t.TempDir()
	grants := writeSpillGrants(t, dir, 1, 50, 3)
	o := BuildOptions{Packs: []string{spillPacks}, Grants: grants, Output: filepath.Join(dir, strings.Repeat("s", 255))}
	if _, err := buildSpilled(o, 4); err != nil {
		t.Fatalf("buildSpilled: %v", err)
	}
	if _, err := os.Stat(o.Output); err != nil {
		t.Fatal(err)
	}
}

// TestSpillRefusesACorruptFile reads back bucket files that write did not
// write: a string or a count longer than the file, a file index or a
// shard out of range, a shard of another bucket or a read of a file not
// made yet (whose grants the read would drop). Each ends the read with
// errSpillCorrupt, without a panic or an allocation as large as the
// number read.
func TestSpillRefusesACorruptFile(t *testing.T) {
	m, err := Checked([]string{spillPacks}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.grantFiles = []string{"g.json"}
	record := func(nums ...uint64) []byte {
		var b []byte
		for _, v := range nums {
			b = binary.AppendUvarint(b, v)
		}
		return b
	}
	cases := map[string][]byte{
		"string":     record(0, 0, 0, 1, 1, 0, 1<<62),
		"count":      record(0, 0, 0, 1, 1, 1<<62),
		"file index": append(record(0, 7, 0, 1, 1, 0), record(0, 0, 0, 0, 0)...),
		"shard":      append(record(1<<63, 0, 0, 1, 1, 0), record(0, 0, 0, 0, 0)...),
		"bucket":     append(record(1, 0, 0, 1, 1, 0), record(0, 0, 0, 0, 0)...),
		"read":       append(record(0, 0, 3, 1, 1, 0), record(0, 0, 0, 0, 0)...),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			sp, err := newSpill(t.TempDir(), "spill-*", 2)
			if err != nil {
				t.Fatal(err)
			}
			defer sp.remove()
			if _, err := sp.buckets[0].f.Write(data); err != nil {
				t.Fatal(err)
			}
			err = sp.shards(m, func(int, []*Grant) error { return nil })
			if !errors.Is(err, errSpillCorrupt) {
				t.Fatalf("read back %x: %v, want %v", data, err, errSpillCorrupt)
			}
		})
	}
}
