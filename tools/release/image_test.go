package main

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// fakeBinaries writes a stand-in binary for each platform.
func fakeBinaries(t *testing.T, platforms ...string) []binary {
	t.Helper()
	dir := t.TempDir()
	var out []binary
	for _, p := range platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		b := binary{os: goos, arch: goarch, path: filepath.Join(dir, "hcp-rego-"+goos+"-"+goarch)}
		if err := os.WriteFile(b.path, []byte("binary for "+p), 0o755); err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

var testMeta = imageMeta{version: "v1.2.3", commit: "0123456789abcdef", created: time.Unix(1700000000, 0).UTC()}

func indexDigest(t *testing.T, built []binary, meta imageMeta) v1.Hash {
	t.Helper()
	idx, err := buildIndex(built, meta)
	if err != nil {
		t.Fatal(err)
	}
	d, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestIndexReproducible: the same binaries and metadata give the same
// index digest, whatever the clock; another time or version another.
func TestIndexReproducible(t *testing.T) {
	built := fakeBinaries(t, "linux/amd64", "linux/arm64", "darwin/arm64")
	first := indexDigest(t, built, testMeta)
	time.Sleep(1100 * time.Millisecond) // a clock read anywhere would show now
	if again := indexDigest(t, built, testMeta); again != first {
		t.Errorf("same inputs, digests %s and %s", first, again)
	}
	later := testMeta
	later.created = later.created.Add(time.Second)
	if d := indexDigest(t, built, later); d == first {
		t.Error("another created time gave the same digest")
	}
	if _, err := buildIndex(fakeBinaries(t, "darwin/amd64"), testMeta); err != errNoLinux {
		t.Errorf("no linux binary: %v, want errNoLinux", err)
	}
}

// TestIndexShape holds the index to what a container runtime needs: an
// OCI index of one image a Linux platform, each with the binary as its
// entrypoint in a gzip'd OCI layer.
func TestIndexShape(t *testing.T) {
	built := fakeBinaries(t, "linux/amd64", "linux/arm64", "windows/amd64")
	idx, err := buildIndex(built, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != types.OCIImageIndex || len(m.Manifests) != 2 || m.Annotations["org.opencontainers.image.revision"] != testMeta.commit {
		t.Fatalf("index %s with %d manifests, annotations %v", m.MediaType, len(m.Manifests), m.Annotations)
	}
	for i, want := range []string{"linux/amd64", "linux/arm64/v8"} {
		desc := m.Manifests[i]
		if got := desc.Platform.String(); got != want {
			t.Errorf("manifest %d: platform %s, want %s", i, got, want)
		}
		img, err := idx.Image(desc.Digest)
		if err != nil {
			t.Fatal(err)
		}
		checkImage(t, img, desc.Platform, []byte("binary for "+built[i].os+"/"+built[i].arch))
	}
}

// checkImage checks one image's manifest, config and layer.
func checkImage(t *testing.T, img v1.Image, p *v1.Platform, bin []byte) {
	t.Helper()
	mf, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if mf.MediaType != types.OCIManifestSchema1 || mf.Config.MediaType != types.OCIConfigJSON || len(mf.Layers) != 1 || mf.Layers[0].MediaType != types.OCILayer {
		t.Errorf("manifest %s, config %s, layers %v", mf.MediaType, mf.Config.MediaType, mf.Layers)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.OS != p.OS || cfg.Architecture != p.Architecture || cfg.Variant != p.Variant ||
		strings.Join(cfg.Config.Entrypoint, " ") != binaryPath || cfg.Config.User != nonroot || !cfg.Created.Equal(testMeta.created) {
		t.Errorf("config %+v", cfg)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := readTar(t, rc)
	if !bytes.Equal(files[strings.TrimPrefix(binaryPath, "/")], bin) {
		t.Errorf("layer files %v: no %s holding the binary", files, binaryPath)
	}
}

// readTar returns the regular files of a tar stream, and checks that every
// entry is root's and dated as the image is.
func readTar(t *testing.T, r io.Reader) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || !h.ModTime.Equal(testMeta.created) {
			t.Errorf("%s: uid %d gid %d time %s", h.Name, h.Uid, h.Gid, h.ModTime)
		}
		if h.Typeflag == tar.TypeReg {
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[h.Name] = data
			if h.Mode != 0o755 {
				t.Errorf("%s: mode %o, want 755", h.Name, h.Mode)
			}
		}
	}
}

// TestWriteLayout: the layout's index.json names the index by version,
// and the layout reads back as the same index; a second write replaces
// the first.
func TestWriteLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "image")
	for _, built := range [][]binary{fakeBinaries(t, "linux/amd64"), fakeBinaries(t, "linux/amd64", "linux/arm64")} {
		idx, err := buildIndex(built, testMeta)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeLayout(dir, idx, testMeta.version); err != nil {
			t.Fatal(err)
		}
		p, err := layout.FromPath(dir)
		if err != nil {
			t.Fatal(err)
		}
		top, err := p.ImageIndex()
		if err != nil {
			t.Fatal(err)
		}
		m, err := top.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := idx.Digest()
		if len(m.Manifests) != 1 || m.Manifests[0].Digest != want || m.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != testMeta.version {
			t.Errorf("index.json %+v, want one entry %s named %s", m.Manifests, want, testMeta.version)
		}
	}
}

// TestPushPlainHTTP: a registry without TLS on loopback takes the image
// only with -plain-http; without it nothing goes over HTTP, though
// go-containerregistry would fall back to it for a loopback address.
func TestPushPlainHTTP(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	ref := strings.TrimPrefix(srv.URL, "http://") + "/hcp-rego:test"
	idx, err := buildIndex(fakeBinaries(t, "linux/amd64", "linux/arm64"), testMeta)
	if err != nil {
		t.Fatal(err)
	}
	err = push(context.Background(), ref, idx, false)
	if err == nil || !strings.Contains(err.Error(), "refused plain HTTP") {
		t.Fatalf("push without -plain-http: %v, want a refusal", err)
	}
	if err := push(context.Background(), ref, idx, true); err != nil {
		t.Fatal(err)
	}
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	got, err := remote.Index(r)
	if err != nil {
		t.Fatal(err)
	}
	gotDigest, _ := got.Digest()
	want, _ := idx.Digest()
	if gotDigest != want {
		t.Errorf("pulled %s, pushed %s", gotDigest, want)
	}
}

func TestCheckRegistryHost(t *testing.T) {
	for ref, ok := range map[string]bool{
		"registry.example.com/hcp-rego:1": true,
		"127.0.0.1:5000/hcp-rego:1":       true,
		"localhost/hcp-rego:1":            true,
		"hcp-rego:1":                      false,
		"library/hcp-rego:1":              false,
	} {
		if err := checkRegistryHost(ref); (err == nil) != ok {
			t.Errorf("%s: %v", ref, err)
		}
	}
}

// TestChecksums: SHA256SUMS is what sha256sum -c reads, sorted by name,
// and it fails on a changed file.
func TestChecksums(t *testing.T) {
	built := fakeBinaries(t, "windows/amd64", "linux/amd64", "darwin/arm64")
	dir := filepath.Dir(built[0].path)
	sums := filepath.Join(dir, "SHA256SUMS")
	if err := writeChecksums(sums, built); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sums)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], "  hcp-rego-darwin-arm64") || !strings.HasSuffix(lines[2], "  hcp-rego-windows-amd64") {
		t.Fatalf("SHA256SUMS:\n%s", data)
	}
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum here")
	}
	check := func() error {
		cmd := exec.Command("sha256sum", "-c", "SHA256SUMS")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		t.Logf("sha256sum -c:\n%s", out)
		return err
	}
	if err := check(); err != nil {
		t.Errorf("sha256sum -c: %v", err)
	}
	if err := os.WriteFile(built[1].path, []byte("changed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if check() == nil {
		t.Error("sha256sum -c passed a changed file")
	}
}

func TestSourceDate(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "")
	if d, err := sourceDate(); err != nil || d.Unix() != 0 {
		t.Errorf("unset: %v %v", d, err)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	if d, err := sourceDate(); err != nil || d.Unix() != 1700000000 {
		t.Errorf("set: %v %v", d, err)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	if _, err := sourceDate(); err == nil {
		t.Error("a bad SOURCE_DATE_EPOCH was taken")
	}
}
