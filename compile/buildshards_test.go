package compile_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
)

const examplePacks = "../testdata/packs"

// tenantGrants writes a grant file of the example packs: a grant without
// a tenant, and a role grant for each tenant given, one a line, so that
// changing one tenant's grant moves no other line.
func tenantGrants(t *testing.T, dir string, tenants []string, role map[string]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("{\n\"version\": 1,\n\"grants\": [\n")
	b.WriteString(`{ "subject": "role:member", "pack_id": "mail", "capabilities": ["verb.exec.read"] }`)
	for _, tenant := range tenants {
		r := role[tenant]
		if r == "" {
			r = "dev"
		}
		fmt.Fprintf(&b, ",\n"+`{ "subject": "role:%s", "tenant": %q, "pack_id": "workspace", "capabilities": ["verb.exec.read"] }`, r, tenant)
	}
	b.WriteString("\n]\n}\n")
	path := filepath.Join(dir, "grants.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBuildShardsChangesOneShard builds the same inputs twice (the same
// bytes), then with one tenant's grant changed in place: the bytes of
// that tenant's shard change, and of no other bundle.
func TestBuildShardsChangesOneShard(t *testing.T) {
	const n = 8
	tenants := []string{"acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "tyrell"}
	dir := t.TempDir()
	build := func(role map[string]string) map[string][]byte {
		t.Helper()
		grants := tenantGrants(t, dir, tenants, role)
		out := filepath.Join(dir, "shards")
		built, err := compile.BuildShards(compile.BuildOptions{Packs: []string{examplePacks}, Grants: []string{grants}, Output: out}, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(built.Shards) != n || built.Grants != len(tenants)+1 {
			t.Fatalf("built %+v: want %d shards and %d grants", built, n, len(tenants)+1)
		}
		return compile.FolderBytes(t, out)
	}
	first, again := build(nil), build(nil)
	if len(first) != n+1 {
		t.Fatalf("the folder holds %d files, want %d", len(first), n+1)
	}
	for name, data := range first {
		if !bytes.Equal(data, again[name]) {
			t.Errorf("%s: the same inputs gave other bytes", name)
		}
	}
	changed := build(map[string]string{"initech": "lead"})
	want := bundles.ShardFile(compile.Shard("initech", n))
	for name, data := range first {
		if differ := !bytes.Equal(data, changed[name]); differ != (name == want) {
			t.Errorf("%s: changed %v after initech's grant changed, want only %s changed", name, differ, want)
		}
	}
}

// TestShardIsDocumented pins the shard function to its definition in
// docs/fleet.md, worked by hand: sha256("acme") begins 82 2b, the number
// 33,323, which is 3 modulo 8 and 3 modulo 4. A change to the function
// would send a router's tenants to other cells.
func TestShardIsDocumented(t *testing.T) {
	for _, c := range []struct {
		tenant string
		n      int
		want   int
	}{
		{"acme", 8, 3}, {"acme", 4, 3}, {"globex", 8, 1}, {"initech", 8, 4}, {"hooli", 256, 0}, {"umbrella", 256, 116},
	} {
		if got := compile.Shard(c.tenant, c.n); got != c.want {
			t.Errorf("Shard(%q, %d) = %d, want %d", c.tenant, c.n, got, c.want)
		}
	}
}

// TestBuildShardsRefuses: a number of shards outside 2..4096, a revision
// (revisions are digests), and an output folder holding what a build
// does not write are refused, and nothing is written.
func TestBuildShardsRefuses(t *testing.T) {
	dir := t.TempDir()
	grants := tenantGrants(t, dir, []string{"acme"}, nil)
	kept := filepath.Join(dir, "home")
	if err := os.MkdirAll(kept, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kept, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		n      int
		out    string
		rev    string
		reason string
	}{
		{"one shard", 1, filepath.Join(dir, "a"), "", "from 2 to 4096"},
		{"too many", 4097, filepath.Join(dir, "a"), "", "from 2 to 4096"},
		{"a revision", 4, filepath.Join(dir, "a"), "r1", "derived from each bundle's contents"},
		{"a folder of other files", 4, kept, "", `holds "notes.txt"`},
		{"a file", 4, grants, "", "grants.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile.BuildShards(compile.BuildOptions{Packs: []string{examplePacks}, Grants: []string{grants}, Output: c.out, Revision: c.rev}, c.n)
			if err == nil || !strings.Contains(err.Error(), c.reason) {
				t.Errorf("error %v, want one saying %q", err, c.reason)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Error("a refused build wrote its folder")
	}
	if data, err := os.ReadFile(filepath.Join(kept, "notes.txt")); err != nil || string(data) != "mine" {
		t.Errorf("the folder of other files changed: %q, %v", data, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("a refused build left %s", e.Name())
		}
	}
}
