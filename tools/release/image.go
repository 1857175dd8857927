package main

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// binaryPath is where the image holds hcp-rego: its entrypoint, and on
// the image's PATH.
const binaryPath = "/usr/local/bin/hcp-rego"

// nonroot is the user the image runs as, distroless's "nonroot": a
// container runs hcp-rego without root unless its runner asks for it.
const nonroot = "65532:65532"

// errNoLinux is buildIndex's answer when no Linux binary was built.
var errNoLinux = errors.New("no linux binary was built to put in the image (-platforms)")

// imageMeta is what the image says about itself.
type imageMeta struct {
	version, commit string
	created         time.Time
}

// annotations are the OCI annotations (and config labels) of the index
// and of each image.
func (m imageMeta) annotations() map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":    "hcp-rego",
		"org.opencontainers.image.version":  m.version,
		"org.opencontainers.image.revision": m.commit,
		"org.opencontainers.image.created":  m.created.Format(time.RFC3339),
		"org.opencontainers.image.source":   "https://github.com/hcp-rego/hcp-rego",
	}
}

// buildIndex makes an OCI image index holding one image for each Linux
// binary, as ko builds one: no base image, one layer holding the static
// binary, the config naming it as the entrypoint.
func buildIndex(built []binary, meta imageMeta) (v1.ImageIndex, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	n := 0
	for _, b := range built {
		if b.os != "linux" {
			continue
		}
		img, err := buildImage(b, meta)
		if err != nil {
			return nil, fmt.Errorf("image for %s/%s: %w", b.os, b.arch, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: platform(b)}})
		n++
	}
	if n == 0 {
		return nil, errNoLinux
	}
	return mutate.Annotations(idx, meta.annotations()).(v1.ImageIndex), nil
}

// platform is b's OCI platform; arm64 is "v8", as Docker and containerd
// normalise it.
func platform(b binary) *v1.Platform {
	p := &v1.Platform{OS: b.os, Architecture: b.arch}
	if b.arch == "arm64" {
		p.Variant = "v8"
	}
	return p
}

// buildImage makes the image of one binary.
func buildImage(b binary, meta imageMeta) (v1.Image, error) {
	data, err := os.ReadFile(b.path)
	if err != nil {
		return nil, err
	}
	layerBytes, err := layerTar(data, meta.created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerBytes)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	p := platform(b)
	img, err := mutate.ConfigFile(empty.Image, &v1.ConfigFile{
		Architecture: p.Architecture,
		OS:           p.OS,
		Variant:      p.Variant,
		Created:      v1.Time{Time: meta.created},
		RootFS:       v1.RootFS{Type: "layers"},
		Config: v1.Config{
			Entrypoint: []string{binaryPath},
			Env:        []string{"PATH=/usr/local/bin"},
			User:       nonroot,
			Labels:     meta.annotations(),
		},
	})
	if err != nil {
		return nil, err
	}
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created:   v1.Time{Time: meta.created},
		CreatedBy: "hcp-rego release: " + binaryPath,
	}})
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(mutate.MediaType(img, types.OCIManifestSchema1), types.OCIConfigJSON)
	return mutate.Annotations(img, meta.annotations()).(v1.Image), nil
}

// layerTar is the image's one layer: the binary at binaryPath, its
// folders, and a /tmp for whatever wants one, every entry owned by root
// and dated created, so the same binary gives the same layer.
func layerTar(bin []byte, created time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entries := []*tar.Header{
		{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777},
		{Typeflag: tar.TypeDir, Name: "usr/", Mode: 0o755},
		{Typeflag: tar.TypeDir, Name: "usr/local/", Mode: 0o755},
		{Typeflag: tar.TypeDir, Name: "usr/local/bin/", Mode: 0o755},
		{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(binaryPath, "/"), Mode: 0o755, Size: int64(len(bin))},
	}
	for _, h := range entries {
		h.ModTime, h.Format = created, tar.FormatUSTAR
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeLayout writes idx to dir as an OCI image layout whose index.json
// names it by version, replacing what dir held: `oras copy
// --from-oci-layout`, `skopeo copy oci:` or `crane push` take it from
// there.
func writeLayout(dir string, idx v1.ImageIndex, version string) error {
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	p, err := layout.Write(tmp, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": version})); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// push writes idx, its images and their blobs to the registry of ref,
// with the credentials of the Docker config (DOCKER_CONFIG,
// ~/.docker/config.json, credential helpers). It talks HTTPS only, unless
// plainHTTP: go-containerregistry would otherwise fall back to HTTP for a
// loopback or private address on its own.
func push(ctx context.Context, ref string, idx v1.ImageIndex, plainHTTP bool) error {
	if err := checkRegistryHost(ref); err != nil {
		return err
	}
	var opts []name.Option
	var transport http.RoundTripper = remote.DefaultTransport
	if plainHTTP {
		opts = append(opts, name.Insecure)
	} else {
		transport = httpsOnly{next: transport}
	}
	r, err := name.ParseReference(ref, opts...)
	if err != nil {
		return err
	}
	err = remote.WriteIndex(r, idx, remote.WithContext(ctx), remote.WithTransport(transport),
		remote.WithAuthFromKeychain(authn.DefaultKeychain), remote.WithUserAgent("hcp-rego-release"))
	if err != nil {
		return fmt.Errorf("push %s: %w", ref, err)
	}
	return nil
}

// checkRegistryHost refuses a reference that names no registry host
// ("hcp-rego:1.0"), which go-containerregistry would send to Docker Hub.
func checkRegistryHost(ref string) error {
	host, _, ok := strings.Cut(ref, "/")
	if !ok || !strings.ContainsAny(host, ".:") && host != "localhost" {
		return fmt.Errorf("image %q: want host[:port]/repository:tag", ref)
	}
	return nil
}

// httpsOnly refuses every request that is not HTTPS.
type httpsOnly struct{ next http.RoundTripper }

func (t httpsOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != "https" {
		return nil, fmt.Errorf("refused plain HTTP to %s: pass -plain-http (make release PLAIN_HTTP=1) for a registry without TLS", r.URL.Host)
	}
	return t.next.RoundTrip(r)
}
