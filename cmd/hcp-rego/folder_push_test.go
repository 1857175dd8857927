package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/registrytest"
)

// shardTenants are tenants whose grants fall in different shards of 4.
var shardTenants = []string{"tenant-a", "tenant-c", "tenant-d", "tenant-f", "acme", "wonka"}

// tenantGrants is a grant file with one grant a tenant of shardTenants
// and one without a tenant, each on its own line; changed, when one of
// them, gets another capability on the same line, so that no other
// grant moves.
func tenantGrants(changed string) []byte {
	var b strings.Builder
	b.WriteString(`{"version": 1, "grants": [` + "\n")
	b.WriteString(`{"subject": "role:member", "pack_id": "mail", "capabilities": ["verb.exec.read"]}`)
	for _, tenant := range shardTenants {
		capability := "verb.exec.read"
		if tenant == changed {
			capability = "verb.exec.write"
		}
		fmt.Fprintf(&b, ",\n"+`{"subject": "principal:u-%s", "tenant": %q, "pack_id": "mail", "capabilities": [%q]}`, tenant, tenant, capability)
	}
	b.WriteString("\n]}\n")
	return []byte(b.String())
}

// buildShards builds the example packs with tenantGrants(changed) into
// the folder out, 4 shards, signed. The grant file is out's sibling
// grants.json, rewritten in place: its name is in the policy bundle.
func buildShards(t *testing.T, out, changed string) {
	t.Helper()
	grants := filepath.Join(filepath.Dir(out), "grants.json")
	if err := os.WriteFile(grants, tenantGrants(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	o := runInProcess(t, 0, "build", "../../testdata/packs", "--grants", grants, "--shards", "4", "-o", out,
		"--signing-key", "../../testdata/keys/rsa.key", "--signing-key-id", "hcp")
	if o.code != exitOK {
		t.Fatalf("build --shards 4: exit %d: %s", o.code, o.stderr)
	}
}

// pushedLine is one line push DIR printed.
type pushedLine struct{ name, ref, digest, revision string }

// pushFolder runs push DIR REF, which must succeed, and returns its lines.
func pushFolder(t *testing.T, dir, ref string) []pushedLine {
	t.Helper()
	o := runInProcess(t, 0, "push", dir, ref, "--plain-http")
	if o.code != exitOK {
		t.Fatalf("push %s: exit %d: %s", dir, o.code, o.stderr)
	}
	var lines []pushedLine
	for _, line := range strings.Split(strings.TrimSpace(o.stdout), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Fatalf("push printed %q, want NAME REF DIGEST REVISION", line)
		}
		lines = append(lines, pushedLine{f[0], f[1], f[2], f[3]})
	}
	return lines
}

// TestPushPullFolder pushes a sharded build's folder: one line a bundle,
// the policy bundle at REF and shard K at REF's tag with -shard-K, each
// tag on the manifest of that file's bytes; pushed again, the same
// digests; after one tenant's grant changes, only its shard's digest.
// pull --shards 4 gives back the folder, byte for byte.
func TestPushPullFolder(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	dir := filepath.Join(t.TempDir(), "shards")
	buildShards(t, dir, "")
	reg := registrytest.New(t)
	ref := reg.Host + "/policy/hcp:prod"
	first := pushFolder(t, dir, ref)

	names := []string{"hcp", "shard-0", "shard-1", "shard-2", "shard-3"}
	if len(first) != len(names) {
		t.Fatalf("push printed %d lines, want %d: %+v", len(first), len(names), first)
	}
	for i, l := range first {
		wantRef := ref
		if i > 0 {
			wantRef = ref + "-" + names[i]
		}
		tag := wantRef[strings.LastIndex(wantRef, ":")+1:]
		if l.name != names[i] || l.ref != wantRef || string(reg.Tag(tag)) != l.digest {
			t.Errorf("line %d: %+v; want %s at %s, its tag on the digest printed (%s)", i, l, names[i], wantRef, reg.Tag(tag))
		}
	}
	// The tags move last, the policy bundle's after every shard's.
	var tagPuts []string
	for _, r := range reg.Requests() {
		if strings.HasPrefix(r, "PUT ") && strings.Contains(r, "/manifests/") && !strings.Contains(r, "/manifests/sha256:") {
			tagPuts = append(tagPuts, r[strings.LastIndex(r, "/")+1:])
		}
	}
	if want := []string{"prod-shard-0", "prod-shard-1", "prod-shard-2", "prod-shard-3", "prod"}; !slices.Equal(tagPuts, want) {
		t.Errorf("tags put in the order %q, want %q", tagPuts, want)
	}
	if again := pushFolder(t, dir, ref); !reflect.DeepEqual(again, first) {
		t.Errorf("the same folder pushed again: %+v, want %+v", again, first)
	}

	changed := "acme"
	k := compile.Shard(changed, 4)
	buildShards(t, dir, changed)
	second := pushFolder(t, dir, ref)
	for i, l := range second {
		if moved := l.digest != first[i].digest; moved != (i == k+1) {
			t.Errorf("after %s's grant changed: %s moved %v (digest %s, was %s); want only shard-%d moved", changed, l.name, moved, l.digest, first[i].digest, k)
		}
	}

	out := filepath.Join(t.TempDir(), "pulled")
	// What pull allocates follows the bundles it fetches and checks: the
	// folder's bytes are its input.
	o := runInProcess(t, folderBytes(t, dir), "pull", ref, "--shards", "4", "-o", out, "--plain-http", "--verification-key", "../../testdata/keys/rsa.pub", "--verification-key-id", "hcp")
	if o.code != exitOK || !strings.Contains(o.stdout, "4 shards, signature verified") {
		t.Fatalf("pull --shards 4: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if got, want := snapshot(t, out), snapshot(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("the folder pulled:\n%v\nwant the folder built:\n%v", got, want)
	}
}

// TestPushFolderRefused: a folder that is not one sharded build's whole,
// or a REF that cannot name its bundles, is refused, naming the file or
// REF, before anything is sent.
func TestPushFolderRefused(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	built := filepath.Join(t.TempDir(), "shards")
	buildShards(t, built, "")
	eight := filepath.Join(t.TempDir(), "eight")
	if o := runInProcess(t, 0, "build", "../../testdata/packs", "--grants", "../../testdata/grants/acme.json", "--shards", "8", "-o", eight); o.code != exitOK {
		t.Fatalf("build --shards 8: %s", o.stderr)
	}
	unsharded := filepath.Join(t.TempDir(), "hcp.tar.gz")
	if o := runInProcess(t, 0, "build", "../../testdata/packs", "--grants", "../../testdata/grants/acme.json", "-o", unsharded); o.code != exitOK {
		t.Fatalf("build: %s", o.stderr)
	}
	reg := registrytest.New(t)
	ref := reg.Host + "/policy/hcp:prod"
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		ref    string
		want   string
	}{
		{"another file", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "notes.txt"), "x") }, ref,
			"notes.txt: not a file that build --shards writes"},
		{"a shard missing", func(t *testing.T, dir string) { remove(t, filepath.Join(dir, "shard-2.tar.gz")) }, ref,
			"shard-2.tar.gz: missing: its policy bundle names 4 shards"},
		{"a shard past N", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(eight, "shard-5.tar.gz"), filepath.Join(dir, "shard-5.tar.gz"))
		}, ref,
			"shard-5.tar.gz: past the 4 shards its policy bundle names"},
		{"a shard of another N", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(eight, "shard-1.tar.gz"), filepath.Join(dir, "shard-1.tar.gz"))
		}, ref,
			"shard-1.tar.gz: not shard 1 of 4 (it is shard 1 of 8)"},
		{"a shard under another's name", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, "shard-0.tar.gz"), filepath.Join(dir, "shard-3.tar.gz"))
		}, ref,
			"shard-3.tar.gz: not shard 3 of 4 (it is shard 0 of 4)"},
		{"a shard that is no bundle", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "shard-3.tar.gz"), "not a bundle") }, ref,
			"shard-3.tar.gz: bundle refused"},
		{"an unsharded policy bundle", func(t *testing.T, dir string) { copyFile(t, unsharded, filepath.Join(dir, "hcp.tar.gz")) }, ref,
			"hcp.tar.gz: not a sharded build's policy bundle (it is an unsharded build's bundle)"},
		{"no policy bundle", func(t *testing.T, dir string) { remove(t, filepath.Join(dir, "hcp.tar.gz")) }, ref,
			"no hcp.tar.gz: push DIR takes a sharded build's folder"},
		{"REF by digest", nil, reg.Host + "/policy/hcp@" + digest.FromString("x").String(),
			"names a digest: a sharded build's bundles are pushed and pulled under tags derived from REF's"},
		{"a tag too long for a shard", nil, ref + strings.Repeat("x", 121-len("prod")),
			`-shard-0" would be 129 characters, over OCI's 128`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "shards")
			if err := os.CopyFS(dir, os.DirFS(built)); err != nil {
				t.Fatal(err)
			}
			if tt.change != nil {
				tt.change(t, dir)
			}
			before := len(reg.Requests())
			o := runInProcess(t, 0, "push", dir, tt.ref, "--plain-http")
			if o.code != exitBadInput || o.stdout != "" || !strings.Contains(o.stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", o.code, o.stdout, o.stderr, tt.want)
			}
			if sent := reg.Requests()[before:]; len(sent) > 0 {
				t.Errorf("the refused push sent %q", sent)
			}
		})
	}
}

// TestPushFolderMovesNoTagUntilStored: a push whose last bundle (the
// policy bundle) the registry refuses moves no tag, not even that of
// the shard it stored before: a sidecar never sees part of a push.
func TestPushFolderMovesNoTagUntilStored(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	dir := filepath.Join(t.TempDir(), "shards")
	buildShards(t, dir, "")
	reg := registrytest.New(t)
	ref := reg.Host + "/policy/hcp:prod"
	first := pushFolder(t, dir, ref)
	// A new policy bundle (another grant without a tenant) and one
	// tenant's shard changed.
	grants := filepath.Join(filepath.Dir(dir), "grants.json")
	more := bytes.Replace(tenantGrants("acme"), []byte(`"capabilities": ["verb.exec.read"]}`), []byte(`"capabilities": ["verb.exec.read", "verb.exec.write"]}`), 1)
	write(t, grants, string(more))
	if o := runInProcess(t, 0, "build", "../../testdata/packs", "--grants", grants, "--shards", "4", "-o", dir, "--signing-key", "../../testdata/keys/rsa.key", "--signing-key-id", "hcp"); o.code != exitOK {
		t.Fatalf("build: %s", o.stderr)
	}
	policy, err := os.ReadFile(filepath.Join(dir, "hcp.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	layer := digest.FromBytes(policy).String()
	reg.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPut && r.URL.Query().Get("digest") == layer {
			registrytest.Refuse(w, http.StatusForbidden, "DENIED")
			return true
		}
		return false
	})
	o := runInProcess(t, 0, "push", dir, ref, "--plain-http")
	if o.code != exitBadInput || !strings.Contains(o.stderr, "access denied") {
		t.Fatalf("push with the policy bundle refused: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	for i, l := range first {
		tag := l.ref[strings.LastIndex(l.ref, ":")+1:]
		if got := string(reg.Tag(tag)); got != l.digest {
			t.Errorf("%s: the tag moved to %s from %s", first[i].name, got, l.digest)
		}
	}
	// The policy bundle's tag refused, last: the error says that the
	// shards' tags moved, and pushing again finishes the push.
	reg.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/manifests/prod") {
			registrytest.Refuse(w, http.StatusForbidden, "DENIED")
			return true
		}
		return false
	})
	o = runInProcess(t, 0, "push", dir, ref, "--plain-http")
	if o.code != exitBadInput || !strings.Contains(o.stderr, "(4 of 5 tags moved before it, the rest kept theirs)") {
		t.Errorf("push with the policy bundle's tag refused: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if got := string(reg.Tag("prod")); got != first[0].digest {
		t.Errorf("the refused tag moved to %s from %s", got, first[0].digest)
	}
	reg.SetFault(nil)
	for _, l := range pushFolder(t, dir, ref) {
		if got := string(reg.Tag(l.ref[strings.LastIndex(l.ref, ":")+1:])); got != l.digest {
			t.Errorf("pushed again: %s's tag on %s, want %s", l.name, got, l.digest)
		}
	}
}

// TestPullFolderRefused: a pull whose bundles are not the build --shards
// says, or not all there, exits 2 and leaves the folder as it was.
func TestPullFolderRefused(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	dir := filepath.Join(t.TempDir(), "shards")
	buildShards(t, dir, "")
	reg := registrytest.New(t)
	ref := reg.Host + "/policy/hcp:prod"
	pushFolder(t, dir, ref)
	// The test registry holds one repository whatever its name: odd has
	// shard 1 under shard 2's tag; half the policy bundle and shards 0
	// and 1 alone.
	pushFolder(t, dir, reg.Host+"/policy/hcp:odd")
	for _, p := range [][2]string{{"shard-1", "odd-shard-2"}, {"hcp", "half"}, {"shard-0", "half-shard-0"}, {"shard-1", "half-shard-1"}} {
		if o := runInProcess(t, 0, "push", filepath.Join(dir, p[0]+".tar.gz"), reg.Host+"/policy/hcp:"+p[1], "--plain-http"); o.code != exitOK {
			t.Fatalf("push %s: %s", p[0], o.stderr)
		}
	}
	tests := []struct {
		name, ref string
		shards    string
		want      string
	}{
		{"another N", ref, "3", `not the policy bundle of a sharded build of 3 shards (it is of 4)`},
		{"a shard missing", reg.Host + "/policy/hcp:half", "4", `hcp:half-shard-2": registry ` + reg.Host + `: not found`},
		{"a shard under another's tag", reg.Host + "/policy/hcp:odd", "4", `hcp:odd-shard-2: not shard 2 of 4 (it is shard 1 of 4)`},
		{"no shards", ref, "1", "--shards 1: a sharded build has from 2 to 4096 shards"},
		{"by digest", reg.Host + "/policy/hcp@" + string(reg.Tag("prod")), "4", "names a digest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "pulled")
			if err := os.CopyFS(out, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(out, "shard-0.tar.gz"), "the shard pulled before")
			before := snapshot(t, filepath.Dir(out))
			o := runInProcess(t, 0, "pull", tt.ref, "--shards", tt.shards, "-o", out, "--plain-http")
			if o.code != exitBadInput || o.stdout != "" || !strings.Contains(o.stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", o.code, o.stdout, o.stderr, tt.want)
			}
			if after := snapshot(t, filepath.Dir(out)); !reflect.DeepEqual(before, after) {
				t.Errorf("the output's folder changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
	missing := runInProcess(t, 0, "pull", reg.Host+"/policy/hcp:none", "--shards", "4", "-o", filepath.Join(t.TempDir(), "none"), "--plain-http")
	if missing.code != exitBadInput || !strings.Contains(missing.stderr, "not found") {
		t.Errorf("pull of no build: exit %d, %s", missing.code, missing.stderr)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	write(t, to, string(data))
}

// folderBytes is the size of the files of a sharded build's folder.
func folderBytes(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		total += int(info.Size())
	}
	return total
}
