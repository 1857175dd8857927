package integration

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
)

// releaseVersion and releaseCommit are what the release test stamps.
const (
	releaseVersion = "v0.0.0-release-test"
	releaseCommit  = "0123456789abcdef0123456789abcdef01234567"
)

// imageBinary is where the release image holds hcp-rego.
const imageBinary = "usr/local/bin/hcp-rego"

// TestReleaseImage runs the release tool (what make release runs) for the
// image's two platforms and pushes the image to a real registry; then
// pulls it back with another OCI client (oras-go, not the
// go-containerregistry that wrote it), checks the index holds linux/amd64
// and linux/arm64, takes the binary out of each layer, checks it is the
// static binary of dist/ for its machine, and runs the amd64 one: it must
// print the stamped version and commit. The same push without -plain-http
// is refused: the registry has no TLS.
func TestReleaseImage(t *testing.T) {
	t.Parallel()
	reg := startRegistry(t, false)
	ref := reg.addr + "/hcp-rego:" + releaseVersion
	dist := filepath.Join(t.TempDir(), "dist")
	res := runRelease(t, dist, "-platforms", "linux/amd64,linux/arm64", "-image", ref, "-plain-http")
	if res.code != 0 {
		t.Fatalf("release: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "pushed "+ref+"@sha256:") {
		t.Errorf("release printed:\n%s", res.stdout)
	}
	checkSums(t, dist, []string{"hcp-rego-linux-amd64", "hcp-rego-linux-arm64"})

	images := pullIndex(t, reg.addr, releaseVersion)
	for _, p := range []string{"linux/amd64", "linux/arm64"} {
		img, ok := images[p]
		if !ok {
			t.Fatalf("the index has %v, no %s", slices.Sorted(maps.Keys(images)), p)
		}
		want := readFile(t, filepath.Join(dist, "hcp-rego-"+strings.ReplaceAll(p, "/", "-")))
		if !bytes.Equal(img.binary, want) {
			t.Errorf("%s: the image's binary is not dist's", p)
		}
		checkStatic(t, p, img.binary)
		if img.config.OS+"/"+img.config.Architecture != p || strings.Join(img.config.Config.Entrypoint, " ") != "/"+imageBinary {
			t.Errorf("%s: config %s/%s, entrypoint %v", p, img.config.OS, img.config.Architecture, img.config.Config.Entrypoint)
		}
	}
	if runtime.GOOS+"/"+runtime.GOARCH == "linux/amd64" {
		bin := writeFile(t, "hcp-rego-from-image", images["linux/amd64"].binary)
		if err := os.Chmod(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, "version").CombinedOutput()
		want := fmt.Sprintf("hcp-rego %s\ncommit %s\nopa 1.22.3\ngo %s linux/amd64\n", releaseVersion, releaseCommit, runtime.Version())
		if err != nil || string(out) != want {
			t.Errorf("hcp-rego version from the image: %v\n%s\nwant:\n%s", err, out, want)
		}
	}

	refused := runRelease(t, filepath.Join(t.TempDir(), "dist"), "-platforms", "linux/amd64", "-image", ref)
	if refused.code == 0 || !strings.Contains(refused.stderr, "refused plain HTTP") {
		t.Errorf("a push over HTTP without -plain-http: exit %d\n%s", refused.code, refused.stderr)
	}
}

// releaseTool builds the release tool (its own module, tools/release)
// into a temporary folder.
func releaseTool(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "release")
	if out, err := exec.Command("go", "build", "-C", "../tools/release", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -C ../tools/release: %v\n%s", err, out)
	}
	return bin
}

// runRelease runs the release tool on this repository with the test's
// stamps and args, and no Docker credentials.
func runRelease(t *testing.T, dist string, args ...string) cliResult {
	t.Helper()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(releaseTool(t), append([]string{"-repo", repo, "-dist", dist,
		"-version", releaseVersion, "-commit", releaseCommit}, args...)...)
	cmd.Env = append(os.Environ(), "DOCKER_CONFIG="+t.TempDir(), "SOURCE_DATE_EPOCH=1700000000")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		res.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkSums checks that dist/SHA256SUMS lists exactly names, sorted, with
// their digests, in the format sha256sum -c reads.
func checkSums(t *testing.T, dist string, names []string) {
	t.Helper()
	var want string
	for _, n := range names {
		sum := sha256.Sum256(readFile(t, filepath.Join(dist, n)))
		want += hex.EncodeToString(sum[:]) + "  " + n + "\n"
	}
	if got := string(readFile(t, filepath.Join(dist, "SHA256SUMS"))); got != want {
		t.Errorf("SHA256SUMS:\n%s\nwant:\n%s", got, want)
	}
}

// pulledImage is one platform's image as pulled back.
type pulledImage struct {
	config ocispec.Image
	binary []byte
}

// pullIndex pulls tag's index from the registry at addr with oras-go and
// returns its images by platform ("os/arch").
func pullIndex(t *testing.T, addr, tag string) map[string]pulledImage {
	t.Helper()
	ctx := context.Background()
	repo, err := remote.NewRepository(addr + "/hcp-rego")
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	desc, err := repo.Resolve(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	if desc.MediaType != ocispec.MediaTypeImageIndex {
		t.Fatalf("%s is a %s, want an image index", tag, desc.MediaType)
	}
	var index ocispec.Index
	fetchJSON(t, repo, desc, &index)
	images := map[string]pulledImage{}
	for _, m := range index.Manifests {
		if m.Platform == nil {
			t.Fatalf("manifest %s has no platform", m.Digest)
		}
		images[m.Platform.OS+"/"+m.Platform.Architecture] = pullImage(t, repo, m)
	}
	return images
}

// pullImage fetches one image manifest, its config and its one layer.
func pullImage(t *testing.T, repo *remote.Repository, desc ocispec.Descriptor) pulledImage {
	t.Helper()
	var manifest ocispec.Manifest
	fetchJSON(t, repo, desc, &manifest)
	if manifest.Config.MediaType != ocispec.MediaTypeImageConfig || len(manifest.Layers) != 1 || manifest.Layers[0].MediaType != ocispec.MediaTypeImageLayerGzip {
		t.Fatalf("manifest %s: config %s, layers %v", desc.Digest, manifest.Config.MediaType, manifest.Layers)
	}
	var img pulledImage
	fetchJSON(t, repo, manifest.Config, &img.config)
	layer, err := content.FetchAll(context.Background(), repo, manifest.Layers[0])
	if err != nil {
		t.Fatal(err)
	}
	img.binary = layerFile(t, layer, imageBinary)
	return img
}

func fetchJSON(t *testing.T, repo *remote.Repository, desc ocispec.Descriptor, v any) {
	t.Helper()
	data, err := content.FetchAll(context.Background(), repo, desc)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", desc.Digest, err)
	}
}

// layerFile is the file name of a gzip'd tar layer.
func layerFile(t *testing.T, layer []byte, name string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(layer))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			t.Fatalf("the layer holds no %s", name)
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == name && h.Typeflag == tar.TypeReg {
			if h.Mode&0o111 == 0 {
				t.Errorf("%s: mode %o is not executable", name, h.Mode)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
	}
}

// checkStatic checks that bin is an ELF executable for platform's machine
// with no interpreter: static, so it runs in an image with no libc.
func checkStatic(t *testing.T, platform string, bin []byte) {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("%s: %v", platform, err)
	}
	want := map[string]elf.Machine{"linux/amd64": elf.EM_X86_64, "linux/arm64": elf.EM_AARCH64}[platform]
	if f.Machine != want {
		t.Errorf("%s: an ELF for %s", platform, f.Machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s: the binary asks for a dynamic loader: not static", platform)
		}
	}
}

// TestMakeBuildStamps runs make build, as a developer does, and checks
// that hcp-rego version prints what git describes (or the fallbacks
// outside a git clone).
func TestMakeBuildStamps(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	wantV, wantC := "dev", "unknown"
	if out, err := exec.Command("git", "-C", "..", "describe", "--tags", "--always", "--dirty").Output(); err == nil {
		wantV = strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "-C", "..", "rev-parse", "HEAD").Output(); err == nil {
		wantC = strings.TrimSpace(string(out))
	}
	bin := filepath.Join(t.TempDir(), "hcp-rego")
	if out, err := exec.Command("make", "-s", "-C", "..", "build", "BIN="+bin).CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "hcp-rego " + wantV + "\ncommit " + wantC + "\n"; !strings.HasPrefix(string(out), want) {
		t.Errorf("hcp-rego version:\n%s\nwant it to begin\n%s", out, want)
	}
}
