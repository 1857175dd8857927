package bundles_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/rego/library"
)

// keys is the folder of the test-only keys.
const keys = "../testdata/keys/"

// exampleModel loads the example packs and grant sets.
func exampleModel(t *testing.T) *compile.Model {
	t.Helper()
	m, err := compile.Checked([]string{"../testdata/packs"}, []string{"../testdata/grants/acme.json", "../testdata/grants/defaults.json"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// build builds the example bundle, failing the test on error.
func build(t *testing.T, revision string, signing *bundles.Signing) []byte {
	t.Helper()
	return builtOf(t, exampleModel(t), revision, signing)
}

// builtFrom checks, compiles and builds, unsigned, the packs and grant
// files given, failing the test on error.
func builtFrom(t *testing.T, packs, grants []string) []byte {
	t.Helper()
	m, err := compile.Checked(packs, grants)
	if err != nil {
		t.Fatal(err)
	}
	return builtOf(t, m, "", nil)
}

// builtOf compiles and builds m, failing the test on error.
func builtOf(t *testing.T, m *compile.Model, revision string, signing *bundles.Signing) []byte {
	t.Helper()
	b, err := compile.Compile(m, revision)
	if err != nil {
		t.Fatal(err)
	}
	data, err := bundles.Build(b, signing)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// entry is one member of a bundle tarball.
type entry struct {
	hdr  *tar.Header
	body []byte
}

// untar lists the members of a .tar.gz and returns its gzip header.
func untar(t *testing.T, data []byte) (gzip.Header, []entry) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var entries []entry
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, entry{hdr, body})
	}
	return zr.Header, entries
}

func TestBuildIsByteIdentical(t *testing.T) {
	signings := map[string]*bundles.Signing{
		"unsigned": nil,
		"RS256":    {KeyFile: keys + "rsa.key", Algorithm: "RS256", KeyID: "hcp"},
		"RS512":    {KeyFile: keys + "rsa.key", Algorithm: "RS512"},
		"HS256":    {KeyFile: keys + "hmac.secret", Algorithm: "HS256", KeyID: "hcp"},
	}
	for name, signing := range signings {
		t.Run(name, func(t *testing.T) {
			first, second := build(t, "", signing), build(t, "", signing)
			if !bytes.Equal(first, second) {
				t.Fatalf("two builds differ: %d and %d bytes", len(first), len(second))
			}
		})
	}
}

// TestRandomizedSignaturesDifferOnlyThere shows what Sign documents: a
// PS256 or ES256 build differs from the next in .signatures.json alone.
func TestRandomizedSignaturesDifferOnlyThere(t *testing.T) {
	for _, s := range []*bundles.Signing{
		{KeyFile: keys + "rsa.key", Algorithm: "PS256"},
		{KeyFile: keys + "ec.key", Algorithm: "ES256"},
	} {
		t.Run(s.Algorithm, func(t *testing.T) {
			_, first := untar(t, build(t, "", s))
			_, second := untar(t, build(t, "", s))
			if len(first) != len(second) {
				t.Fatalf("%d and %d members", len(first), len(second))
			}
			for i := range first {
				same := bytes.Equal(first[i].body, second[i].body)
				if sig := first[i].hdr.Name == "/.signatures.json"; same == sig {
					t.Errorf("%s: equal %v across builds", first[i].hdr.Name, same)
				}
			}
		})
	}
}

func TestBuildHasNoTimestampsAndSortedMembers(t *testing.T) {
	zh, entries := untar(t, build(t, "r1", &bundles.Signing{KeyFile: keys + "rsa.key", KeyID: "hcp"}))
	if !zh.ModTime.IsZero() && zh.ModTime.Unix() != 0 || zh.Name != "" || zh.Comment != "" {
		t.Errorf("gzip header carries %v %q %q", zh.ModTime, zh.Name, zh.Comment)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.hdr.Name)
		if e.hdr.ModTime.Unix() != 0 || e.hdr.Uid != 0 || e.hdr.Gid != 0 || e.hdr.Uname != "" || e.hdr.Gname != "" {
			t.Errorf("%s: tar header carries %v %d:%d %q:%q", e.hdr.Name, e.hdr.ModTime, e.hdr.Uid, e.hdr.Gid, e.hdr.Uname, e.hdr.Gname)
		}
	}
	want := []string{"/data.json"}
	for _, mod := range library.Modules() {
		want = append(want, "/"+mod.Path)
	}
	want = append(want, "/.signatures.json", "/.manifest")
	if !slices.Equal(names, want) {
		t.Errorf("members\n got %q\nwant %q", names, want)
	}
}

func TestBuildManifest(t *testing.T) {
	b, err := bundles.Read(writeTemp(t, "b.tar.gz", build(t, "", nil)), nil, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	m := exampleModel(t)
	// The default revision is a digest of the content: 16 hex digits, the
	// same for the same inputs, another for other grants.
	fewer, err := compile.Checked([]string{"../testdata/packs"}, []string{"../testdata/grants/acme.json"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := compile.Compile(fewer, "")
	if err != nil {
		t.Fatal(err)
	}
	again, err := compile.Compile(m, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Manifest.Revision; !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(got) || got != again.Manifest.Revision || got == other.Manifest.Revision {
		t.Errorf("revision %q: want 16 hex digits, as %q gives again, unlike %q with other grants", got, again.Manifest.Revision, other.Manifest.Revision)
	}
	if got := *b.Manifest.Roots; !slices.Equal(got, []string{"hcp/authz", "hcp_packs", "hcp_grants"}) {
		t.Errorf("roots %q", got)
	}
	if b.Manifest.RegoVersion == nil || *b.Manifest.RegoVersion != 1 {
		t.Errorf("rego_version %v, want 1", b.Manifest.RegoVersion)
	}
	// The manifest names the sources by their count and digest; the list
	// is data, beside the grant tables.
	files, _ := b.Data["hcp_grants"].(map[string]any)["base"].(map[string]any)["sources"].(map[string]any)
	acme, err := os.ReadFile("../testdata/grants/acme.json")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%x", sha256.Sum256(acme))
	if got := files["../testdata/grants/acme.json"]; got != want || len(files) != 8 {
		t.Errorf("hcp_grants.base.sources: %d files, acme.json %v", len(files), got)
	}
	list := map[string]string{}
	for path, sum := range files {
		list[path], _ = sum.(string)
	}
	hcp, _ := b.Manifest.Metadata["hcp"].(map[string]any)
	wantMeta := map[string]any{"packs": json.Number("3"), "sources": json.Number("8"), "sources_sha256": bundles.SourcesDigest(list)}
	if !reflect.DeepEqual(hcp, wantMeta) {
		t.Errorf("metadata.hcp %v, want %v", hcp, wantMeta)
	}
}

func TestRevisionFlag(t *testing.T) {
	b, err := bundles.Read(writeTemp(t, "b.tar.gz", build(t, "v2026.11", nil)), nil, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if b.Manifest.Revision != "v2026.11" {
		t.Errorf("revision %q", b.Manifest.Revision)
	}
}

func TestSigningErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.key")
	os.WriteFile(empty, nil, 0o644)
	pathSecret := filepath.Join(dir, "path.secret")
	os.WriteFile(pathSecret, []byte(empty), 0o644)
	tests := []struct {
		name    string
		signing bundles.Signing
		want    string
	}{
		{"unknown algorithm", bundles.Signing{KeyFile: keys + "rsa.key", Algorithm: "RS257"}, `signing algorithm "RS257": want one of RS256, RS384, RS512, PS256, ES256, ES384, ES512, HS256`},
		{"missing key file", bundles.Signing{KeyFile: keys + "nope.key"}, "signing key " + keys + "nope.key: no such file or directory"},
		{"key folder", bundles.Signing{KeyFile: keys}, "signing key " + keys + ": not a regular file"},
		{"empty key file", bundles.Signing{KeyFile: empty}, "signing key " + empty + ": empty"},
		{"public key", bundles.Signing{KeyFile: keys + "rsa.pub"}, "signing key " + keys + "rsa.pub: a PEM public key, not a private key"},
		{"not PEM", bundles.Signing{KeyFile: keys + "hmac.secret", Algorithm: "RS256"}, "signing key " + keys + "hmac.secret: not a PEM private key"},
		{"RSA key for ES256", bundles.Signing{KeyFile: keys + "rsa.key", Algorithm: "ES256"}, "signing key " + keys + "rsa.key: an RSA key, which does not sign ES256"},
		{"EC key for RS256", bundles.Signing{KeyFile: keys + "ec.key"}, "signing key " + keys + "ec.key: an ECDSA P-256 key, which does not sign RS256"},
		{"P-256 key for ES384", bundles.Signing{KeyFile: keys + "ec.key", Algorithm: "ES384"}, "signing key " + keys + "ec.key: an ECDSA P-256 key, which does not sign ES384"},
		{"PEM key for HS256", bundles.Signing{KeyFile: keys + "rsa.key", Algorithm: "HS256"}, "signing key " + keys + "rsa.key: a PEM private key, but HS256 takes a shared secret"},
		{"secret naming a file", bundles.Signing{KeyFile: pathSecret, Algorithm: "HS256"}, "signing key " + pathSecret + ": the secret names a file; the file must hold the secret itself"},
	}
	m := exampleModel(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := compile.Compile(m, "")
			if err != nil {
				t.Fatal(err)
			}
			_, err = bundles.Build(b, &tt.signing)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "hcp.tar.gz")
	if err := bundles.WriteFileAtomic(out, []byte("first")); err != nil {
		t.Fatal(err)
	}
	if err := bundles.WriteFileAtomic(out, []byte("second")); err != nil {
		t.Fatal(err)
	}
	// A folder in the way, or a missing folder, fails the write: the
	// folder stays, and no temporary file is left.
	blocked := filepath.Join(dir, "blocked")
	os.MkdirAll(filepath.Join(blocked, "x"), 0o755)
	if err := bundles.WriteFileAtomic(blocked, []byte("third")); err == nil || err.Error() != "write "+blocked+": is a directory" {
		t.Errorf("error %v", err)
	}
	if err := bundles.WriteFileAtomic(filepath.Join(dir, "missing", "b.tar.gz"), []byte("x")); err == nil {
		t.Error("no error for a missing folder")
	}
	assertTree(t, dir, []string{"blocked", "blocked/x", "hcp.tar.gz"})
	if got, _ := os.ReadFile(out); string(got) != "second" {
		t.Errorf("content %q", got)
	}
	if info, _ := os.Stat(out); info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", info.Mode())
	}
}

// A symbolic link is written through and stays a link; a named pipe or a
// link to nothing is refused and left as it was.
func TestWriteFileAtomicLinksAndSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.tar.gz")
	os.WriteFile(real, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.tar.gz")
	if err := os.Symlink("real.tar.gz", link); err != nil {
		t.Skip(err)
	}
	if err := bundles.WriteFileAtomic(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(real); string(got) != "new" {
		t.Errorf("link target holds %q", got)
	}
	if info, _ := os.Lstat(link); info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link replaced: mode %v", info.Mode())
	}

	dangling := filepath.Join(dir, "dangling.tar.gz")
	os.Symlink("nowhere.tar.gz", dangling)
	if err := bundles.WriteFileAtomic(dangling, []byte("x")); err == nil || err.Error() != "write "+dangling+": a symbolic link to nothing" {
		t.Errorf("dangling link: error %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := bundles.WriteFileAtomic(fifo, []byte("x")); err == nil || err.Error() != "write "+fifo+": not a regular file" {
		t.Errorf("fifo: error %v", err)
	}
	if info, _ := os.Lstat(fifo); info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("fifo replaced: mode %v", info.Mode())
	}
	assertTree(t, dir, []string{"dangling.tar.gz", "fifo", "link.tar.gz", "real.tar.gz"})
}

// A name as long as the folder takes is written: the temporary file's
// name beside it stays shorter.
func TestWriteFileAtomicLongName(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, strings.Repeat("b", 247)+".tar.gz")
	if err := bundles.WriteFileAtomic(out, []byte("x")); err != nil {
		t.Fatal(err)
	}
	assertTree(t, dir, []string{filepath.Base(out)})
}

// A file that is replaced keeps its permissions: a private bundle stays
// private.
func TestWriteFileAtomicKeepsPermissions(t *testing.T) {
	out := filepath.Join(t.TempDir(), "private.tar.gz")
	os.WriteFile(out, []byte("old"), 0o600)
	os.Chmod(out, 0o600)
	if err := bundles.WriteFileAtomic(out, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(out); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want -rw-------", info.Mode())
	}
}

// assertTree fails unless the paths below dir are exactly want.
func assertTree(t *testing.T, dir string, want []string) {
	t.Helper()
	var got []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if path != dir {
			rel, _ := filepath.Rel(dir, path)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if !slices.Equal(got, want) {
		t.Errorf("%s holds\n %q\nwant %q", dir, got, want)
	}
}

// writeTemp writes data to a new file in a temporary folder.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
