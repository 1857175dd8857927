package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/hcp-rego/hcp-rego/internal/registrytest"
)

// A registry answers wrongly (a broken mirror, an attacker on the way):
// each bad answer is refused, with an error and no bytes, and a push it
// cuts short leaves the tag where it was.

// testRemote talks to a registrytest registry.
var testRemote = Remote{PlainHTTP: true, Credentials: noCredentials}

// pushed pushes tarball to reg under tag, with tag for its revision, and
// returns the REF "HOST/policy/hcp:TAG".
func pushed(t *testing.T, reg *registrytest.Registry, tag string, tarball []byte) Reference {
	t.Helper()
	ref, err := ParseReference(reg.Host + "/policy/hcp:" + tag)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testRemote.Push(context.Background(), ref, tarball, tag); err != nil {
		t.Fatal(err)
	}
	return ref
}

// packed is the manifest Push stores for tarball and revision: its
// descriptor and bytes.
func packed(t *testing.T, tarball []byte, revision string) (ocispec.Descriptor, []byte) {
	t.Helper()
	store, desc, err := Pack(context.Background(), tarball, revision)
	if err != nil {
		t.Fatal(err)
	}
	data, err := content.FetchAll(context.Background(), store, desc)
	if err != nil {
		t.Fatal(err)
	}
	return desc, data
}

// answer is a Fault that answers the requests of method for a path that
// ends in suffix with 200 OK, header and body. When chunked, the header
// goes out before the body, so that the answer has no length but the one
// header gives (else Go's server counts a small body's).
func answer(method, suffix string, header map[string]string, body []byte, chunked bool) registrytest.Fault {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != method || !strings.HasSuffix(r.URL.Path, suffix) {
			return false
		}
		for k, v := range header {
			w.Header().Set(k, v)
		}
		if chunked {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
		}
		w.Write(body)
		return true
	}
}

// TestPullLayerOverLimit: a bundle layer larger than the limit is refused
// from the manifest alone, before the registry is asked for it.
func TestPullLayerOverLimit(t *testing.T) {
	tarball := []byte("the bundle, 27 bytes of it.")
	layer := content.NewDescriptorFromBytes(LayerMediaType, tarball)
	for _, limit := range []int64{layer.Size, layer.Size - 1, 0} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			reg := registrytest.New(t)
			ref := pushed(t, reg, "r1", tarball)
			got, err := testRemote.Pull(context.Background(), ref, limit)
			fetched := reg.Asked(http.MethodGet, "/blobs/"+layer.Digest.String())
			if limit >= layer.Size {
				if err != nil || !bytes.Equal(got, tarball) || !fetched {
					t.Fatalf("a layer within the limit: %v, %q", err, got)
				}
				return
			}
			want := fmt.Sprintf("the bundle layer is %d bytes, larger than the limit of %d compressed", layer.Size, limit)
			if err == nil || !strings.Contains(err.Error(), want) || got != nil {
				t.Errorf("pull: %v, %d bytes; want no bytes and %q", err, len(got), want)
			}
			if fetched {
				t.Error("the layer was fetched before it was refused")
			}
		})
	}
}

// TestPullLayerNotItsDigest: layer bytes other than the manifest's digest
// names are refused, whole or in part.
func TestPullLayerNotItsDigest(t *testing.T) {
	tarball := []byte("the bundle as pushed")
	layer := content.NewDescriptorFromBytes(LayerMediaType, tarball)
	length := map[string]string{"Content-Length": fmt.Sprint(len(tarball))}
	tests := []struct {
		name    string
		body    []byte
		header  map[string]string
		chunked bool
		want    string
	}{
		{"same length, other bytes", []byte("the bundle as PUSHED"), length, false, "does not match its digest"},
		{"the bundle and more", append(bytes.Clone(tarball), " and more"...), nil, true, "does not match its digest"},
		{"the bundle cut short", tarball[:10], nil, true, "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := registrytest.New(t)
			ref := pushed(t, reg, "r1", tarball)
			reg.SetFault(answer(http.MethodGet, "/blobs/"+layer.Digest.String(), tt.header, tt.body, tt.chunked))
			got, err := testRemote.Pull(context.Background(), ref, 1<<20)
			if err == nil || !strings.Contains(err.Error(), tt.want) || got != nil {
				t.Errorf("pull: %v, %q; want no bytes and %q", err, got, tt.want)
			}
		})
	}
}

// TestPullManifestNotItsDigest: a manifest other than the one the REF's
// digest or the registry's Docker-Content-Digest names is refused, even
// when it is a good manifest of another bundle that the registry holds.
func TestPullManifestNotItsDigest(t *testing.T) {
	good, _ := packed(t, []byte("the bundle as pushed"), "r1")
	other, otherData := packed(t, []byte("another bundle"), "r2")
	tests := []struct {
		name   string
		ref    string // after HOST/policy/hcp
		header digest.Digest
	}{
		{"by digest, said to be the one asked", "@" + good.Digest.String(), good.Digest},
		{"by digest, said to be its own", "@" + good.Digest.String(), other.Digest},
		{"by digest, no digest said", "@" + good.Digest.String(), ""},
		{"by tag, said to be the tag's", ":r1", good.Digest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := registrytest.New(t)
			pushed(t, reg, "r1", []byte("the bundle as pushed"))
			pushed(t, reg, "r2", []byte("another bundle"))
			ref, err := ParseReference(reg.Host + "/policy/hcp" + tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			header := map[string]string{"Content-Type": other.MediaType, "Content-Length": fmt.Sprint(len(otherData))}
			if tt.header != "" {
				header["Docker-Content-Digest"] = tt.header.String()
			}
			reg.SetFault(answer(http.MethodGet, "/manifests/"+tt.ref[1:], header, otherData, false))
			got, err := testRemote.Pull(context.Background(), ref, 1<<20)
			if err == nil || !strings.Contains(err.Error(), "does not match its digest") || got != nil {
				t.Errorf("pull: %v, %q; want no bytes and a digest that does not match", err, got)
			}
		})
	}
}

// TestPushCutShort: a registry that refuses the new bundle's layer or its
// manifest fails the push, and the tag still names the bundle it named:
// the layer is stored before the manifest, and the manifest is never put
// when the layer was not.
func TestPushCutShort(t *testing.T) {
	tarball := []byte("the new bundle")
	layer := content.NewDescriptorFromBytes(LayerMediaType, tarball)
	tests := []struct {
		name   string
		refuse func(r *http.Request) bool
		status int
		code   string
		want   string
	}{
		{"the manifest", func(r *http.Request) bool {
			return r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/manifests/r1")
		}, http.StatusBadRequest, "MANIFEST_INVALID", "PUT /v2/policy/hcp/manifests/r1 answered 400 Bad Request"},
		{"the layer", func(r *http.Request) bool {
			return r.Method == http.MethodPut && r.URL.Query().Get("digest") == layer.Digest.String()
		}, http.StatusForbidden, "DENIED", "access denied (403 Forbidden)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := registrytest.New(t)
			ref := pushed(t, reg, "r1", []byte("the old bundle"))
			old, since := reg.Tag("r1"), len(reg.Requests())
			reg.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
				if tt.refuse(r) {
					registrytest.Refuse(w, tt.status, tt.code)
				}
				return tt.refuse(r)
			})
			_, err := testRemote.Push(context.Background(), ref, tarball, "r2")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("push: %v, want %q", err, tt.want)
			}
			if now := reg.Tag("r1"); now != old {
				t.Errorf("the tag moved from %s to %s", old, now)
			}
			requests := reg.Requests()[since:]
			layerPut := slices.IndexFunc(requests, func(r string) bool { return strings.HasPrefix(r, "PUT ") && strings.Contains(r, "/blobs/uploads/") })
			manifestPut := slices.Index(requests, "PUT /v2/policy/hcp/manifests/r1")
			if layerPut < 0 || (manifestPut >= 0 && manifestPut < layerPut) || (tt.code == "DENIED" && manifestPut >= 0) {
				t.Errorf("requests %q: want the layer put before the manifest, and no manifest put after a refused layer", requests)
			}
		})
	}
}

// TestPullThroughIndex: a tag that names an image index of the bundle's
// manifest, as OPA's oci downloader accepts it, pulls the bundle.
func TestPullThroughIndex(t *testing.T) {
	ctx := context.Background()
	tarball := []byte("the bundle, through an index")
	reg := registrytest.New(t)
	pushed(t, reg, "r1", tarball)
	desc, _ := packed(t, tarball, "r1")
	data, _ := json.Marshal(ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{desc}})
	ref, err := ParseReference(reg.Host + "/policy/hcp:idx")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := testRemote.repository(ref)
	if err != nil {
		t.Fatal(err)
	}
	index := content.NewDescriptorFromBytes(ocispec.MediaTypeImageIndex, data)
	if err := repo.PushReference(ctx, index, bytes.NewReader(data), "idx"); err != nil {
		t.Fatal(err)
	}
	got, err := testRemote.Pull(ctx, ref, 1<<20)
	if err != nil || !bytes.Equal(got, tarball) {
		t.Fatalf("pull through an index: %v, %q", err, got)
	}
}
