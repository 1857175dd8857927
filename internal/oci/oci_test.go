package oci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/hcp-rego/hcp-rego/internal/registrytest"
)

// noCredentials is a Remote's Credentials that has none for any
// registry, so that no test reads a Docker config.
func noCredentials(context.Context, string) (auth.Credential, error) {
	return auth.EmptyCredential, nil
}

// TestPackLayout checks the manifest against what OPA's oci downloader
// reads (docs/fleet.md, push), and that packing twice gives the same
// bytes.
func TestPackLayout(t *testing.T) {
	ctx := context.Background()
	tarball := []byte("not really gzip, the layout does not look")
	store, desc, err := Pack(ctx, tarball, "r1")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := store.Fetch(ctx, desc)
	if err != nil {
		t.Fatal(err)
	}
	data, err := content.ReadAll(rc, desc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if desc.MediaType != ocispec.MediaTypeImageManifest || m.MediaType != ocispec.MediaTypeImageManifest {
		t.Errorf("media type %q / %q, want an image manifest", desc.MediaType, m.MediaType)
	}
	if len(m.Layers) != 1 || m.Layers[0].MediaType != "application/vnd.oci.image.layer.v1.tar+gzip" ||
		m.Layers[0].Digest != content.NewDescriptorFromBytes("", tarball).Digest {
		t.Errorf("layers %+v, want the one tarball layer", m.Layers)
	}
	if m.Config.MediaType != "application/vnd.oci.image.config.v1+json" {
		t.Errorf("config media type %q", m.Config.MediaType)
	}
	if rev := m.Annotations["org.opencontainers.image.revision"]; rev != "r1" {
		t.Errorf("revision annotation %q, want r1", rev)
	}
	if ok, _ := store.Exists(ctx, m.Config); !ok {
		t.Error("the config blob is not stored")
	}
	for range 2 {
		_, again, err := Pack(ctx, tarball, "r1")
		if err != nil || again.Digest != desc.Digest {
			t.Fatalf("packed again: %v, %v, want the digest %s", err, again.Digest, desc.Digest)
		}
	}
	_, other, _ := Pack(ctx, tarball, "r2")
	if other.Digest == desc.Digest {
		t.Error("another revision gave the same digest")
	}
}

func TestParseReference(t *testing.T) {
	tests := []struct {
		ref  string
		want string // "" when it parses, else part of the error
	}{
		{"127.0.0.1:5000/hcp:r1", ""},
		{"registry.example.com/policy/hcp@sha256:" + strings.Repeat("a", 64), ""},
		{"127.0.0.1:5000/hcp", "no tag or digest"},
		{"127.0.0.1:5000/policy/hcp:prod@sha256:" + strings.Repeat("a", 64), "both a tag and a digest"},
		{"127.0.0.1:5000/policy/hcp@sha256:" + strings.Repeat("a", 64), ""},
		{"hcp:r1", "want host[:port]/repository:tag"},
		{"127.0.0.1:5000/HCP:r1", "want host[:port]/repository:tag"},
		{"https://user:s3cret@registry.example.com/hcp:r1", "not shown"},
		{"user:s3cret@registry.example.com/hcp:r1", "not shown"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			_, err := ParseReference(tt.ref)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want %q", err, tt.want)
			case err != nil && strings.Contains(err.Error(), "s3cret"):
				t.Errorf("the error echoes the password: %v", err)
			}
		})
	}
}

// TestRegistryErrors checks the one line a failure gives, against a port
// where nothing listens and a listener that answers no HTTP.
func TestRegistryErrors(t *testing.T) {
	ctx := context.Background()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()

	ref, err := ParseReference(closed + "/hcp:r1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Remote{PlainHTTP: true, Credentials: noCredentials}.Push(ctx, ref, []byte("x"), "r1")
	want := "push \"" + closed + "/hcp:r1\": registry " + closed + ": cannot connect: connection refused"
	if err == nil || err.Error() != want {
		t.Errorf("push to a closed port: %v, want %s", err, want)
	}
	var re *RegistryError
	if !errors.As(err, &re) {
		t.Errorf("not a *RegistryError: %T", err)
	}

	// An HTTP server reached over HTTPS.
	plain, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	go func() {
		for {
			c, err := plain.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				c.Read(buf)
				io.WriteString(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
			}()
		}
	}()
	ref, _ = ParseReference(plain.Addr().String() + "/hcp:r1")
	_, err = Remote{Credentials: noCredentials}.Pull(ctx, ref, 1<<20)
	if err == nil || !strings.Contains(err.Error(), "--plain-http") {
		t.Errorf("pull over HTTPS from an HTTP server: %v, want a hint at --plain-http", err)
	}
	_, err = Remote{PlainHTTP: true, Credentials: noCredentials}.Pull(ctx, ref, 1<<20)
	if err == nil || !strings.Contains(err.Error(), "not found") || strings.Count(err.Error(), "\n") > 0 {
		t.Errorf("pull of a missing manifest: %v, want one line saying not found", err)
	}
}

// TestBundleManifest follows OPA's oci downloader to the bundle's
// manifest: the manifest itself, or through image indexes.
func TestBundleManifest(t *testing.T) {
	ctx := context.Background()
	layer := content.NewDescriptorFromBytes(LayerMediaType, []byte("b"))
	other := content.NewDescriptorFromBytes("application/octet-stream", []byte("o"))
	// blobs holds the manifests an index names, by digest; fetched counts
	// what was asked for.
	blobs := map[string][]byte{}
	fetched := map[string]int{}
	fetch := func(_ context.Context, d ocispec.Descriptor) ([]byte, error) {
		fetched[d.Digest.String()]++
		if data, ok := blobs[d.Digest.String()]; ok {
			return data, nil
		}
		return nil, errors.New("not found")
	}
	put := func(mediaType string, v any, platform *ocispec.Platform) (ocispec.Descriptor, []byte) {
		data, _ := json.Marshal(v)
		d := content.NewDescriptorFromBytes(mediaType, data)
		d.Platform = platform
		blobs[d.Digest.String()] = data
		return d, data
	}
	manifest := func(layers ...ocispec.Descriptor) (ocispec.Descriptor, []byte) {
		return put(ocispec.MediaTypeImageManifest, ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, Layers: layers}, nil)
	}
	index := func(entries ...ocispec.Descriptor) (ocispec.Descriptor, []byte) {
		return put(ocispec.MediaTypeImageIndex, ocispec.Index{MediaType: ocispec.MediaTypeImageIndex, Manifests: entries}, nil)
	}
	find := func(desc ocispec.Descriptor, data []byte) (ocispec.Descriptor, error) {
		m, err := bundleManifest(ctx, fetch, desc, data)
		if err != nil {
			return ocispec.Descriptor{}, err
		}
		return bundleLayer(m)
	}

	bundle, bundleData := manifest(other, layer)
	if got, err := find(bundle, bundleData); err != nil || got.Digest != layer.Digest {
		t.Errorf("a manifest: %v, %v", got, err)
	}
	noBundle, noBundleData := manifest(other)
	if _, err := find(noBundle, noBundleData); !errors.Is(err, errNotBundleManifest) {
		t.Errorf("a manifest without a bundle layer: %v", err)
	}
	negative := layer
	negative.Size = -1
	if _, err := find(manifest(negative)); err == nil || !strings.Contains(err.Error(), "negative size") {
		t.Errorf("a layer of negative size: %v", err)
	}
	if _, err := find(ocispec.Descriptor{}, []byte(`{"layers": "not a list"}`)); err == nil || !strings.Contains(err.Error(), "does not parse") {
		t.Errorf("a manifest that does not parse: %v", err)
	}

	// An index: provenance (unknown/unknown) is passed over unfetched, a
	// manifest without the layer and one that is missing are tried, and
	// the bundle's manifest is found, through a nested index too.
	provenance, _ := put(ocispec.MediaTypeImageManifest, ocispec.Manifest{Layers: []ocispec.Descriptor{layer}}, &ocispec.Platform{OS: "unknown", Architecture: "unknown"})
	missing := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, []byte("gone"))
	nested, _ := index(noBundle, bundle)
	top, topData := index(provenance, missing, noBundle, nested)
	if got, err := find(top, topData); err != nil || got.Digest != layer.Digest {
		t.Errorf("an index: %v, %v", got, err)
	}
	if fetched[provenance.Digest.String()] != 0 || fetched[noBundle.Digest.String()] != 1 {
		t.Errorf("fetched %v: want provenance never and a manifest seen twice once", fetched)
	}

	// Indexes nested deeper than OPA follows, an index with no bundle, and
	// an index wider than the fetches allowed.
	deep, deepData := bundle, bundleData
	for range maxIndexDepth + 1 {
		deep, deepData = index(deep)
	}
	if _, err := find(deep, deepData); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("indexes %d deep: %v", maxIndexDepth+1, err)
	}
	if _, err := find(index(noBundle, missing)); err == nil || !strings.Contains(err.Error(), "no manifest with a bundle layer (2 tried") {
		t.Errorf("an index without a bundle: %v", err)
	}
	var wide []ocispec.Descriptor
	for i := range 2 * maxIndexFetches {
		wide = append(wide, content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, []byte(fmt.Sprint(i))))
	}
	wide = append(wide, bundle)
	clear(fetched)
	if _, err := find(index(wide...)); err == nil || len(fetched) > maxIndexFetches {
		t.Errorf("an index of %d manifests: %v after %d fetches", len(wide), err, len(fetched))
	}
}

// TestPullStalledRegistry: a registry that sends the head of the bundle
// layer and then nothing more ends the pull once no byte has moved for
// idleTimeout, with an error, rather than holding it forever.
func TestPullStalledRegistry(t *testing.T) {
	defer func(was time.Duration) { idleTimeout = was }(idleTimeout)
	idleTimeout = 300 * time.Millisecond
	tarball := []byte("the bundle, which never comes whole")
	layer := content.NewDescriptorFromBytes(LayerMediaType, tarball)
	reg := registrytest.New(t)
	ref := pushed(t, reg, "r1", tarball)
	release := make(chan struct{})
	defer close(release) // before the registry stops, which waits for the stalled handler
	reg.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/blobs/"+layer.Digest.String()) {
			return false
		}
		w.Header().Set("Content-Length", fmt.Sprint(layer.Size))
		w.Write(tarball[:1])
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return true
	})
	done := make(chan error, 1)
	go func() {
		_, err := testRemote.Pull(context.Background(), ref, 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a layer cut short was pulled")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the pull still waits on a stalled registry after 30 s")
	}
}

// TestTagged derives the reference of a bundle pushed beside REF's: its
// repository at another tag, which OCI must allow.
func TestTagged(t *testing.T) {
	base, err := ParseReference("127.0.0.1:5000/policy/hcp:prod")
	if err != nil {
		t.Fatal(err)
	}
	got, err := base.Tagged("prod-shard-3")
	if err != nil || got.String() != "127.0.0.1:5000/policy/hcp:prod-shard-3" || got.Tag() != "prod-shard-3" {
		t.Errorf("Tagged: %v, %v; want 127.0.0.1:5000/policy/hcp:prod-shard-3", got, err)
	}
	if _, err := base.Tagged(strings.Repeat("a", 128)); err != nil {
		t.Errorf("a tag of 128 characters: %v", err)
	}
	for tag, want := range map[string]string{strings.Repeat("a", 129): "would be 129 characters, over OCI's 128", "prod/x": "not a tag OCI allows", "-x": "not a tag OCI allows"} {
		if _, err := base.Tagged(tag); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("tag %q: %v, want %q", tag, err, want)
		}
	}
	digested, _ := ParseReference("127.0.0.1:5000/policy/hcp@sha256:" + strings.Repeat("a", 64))
	if digested.Tag() != "" {
		t.Errorf("a REF by digest has the tag %q", digested.Tag())
	}
}
