package oci

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
)

// Pull fetches the bundle tarball at ref as OPA's oci downloader finds
// it: the first layer of LayerMediaType of the image manifest, which an
// image index (or a Docker manifest list) may name (see bundleManifest).
// Each manifest and the layer are checked against their digests; a layer
// larger than maxBytes is refused before it is fetched. The caller reads
// the tarball as a bundle.
func (r Remote) Pull(ctx context.Context, ref Reference, maxBytes int64) ([]byte, error) {
	repo, err := r.repository(ref)
	if err != nil {
		return nil, err
	}
	desc, data, err := oras.FetchBytes(ctx, repo, ref.Reference.Reference, oras.FetchBytesOptions{MaxBytes: maxManifestSize})
	if err != nil {
		return nil, registryError("pull", ref, err)
	}
	fetch := func(ctx context.Context, d ocispec.Descriptor) ([]byte, error) {
		if d.Size < 0 || d.Size > maxManifestSize {
			return nil, fmt.Errorf("the index names a manifest of %d bytes, beyond the limit of %d", d.Size, maxManifestSize)
		}
		data, err := content.FetchAll(ctx, repo, d)
		if err != nil {
			return nil, registryError("pull", ref, err)
		}
		return data, nil
	}
	manifest, err := bundleManifest(ctx, fetch, desc, data)
	if err != nil {
		return nil, fmt.Errorf("pull %s: %w", quoted(ref.text), err)
	}
	layer, err := bundleLayer(manifest)
	if err != nil {
		return nil, fmt.Errorf("pull %s: %w", quoted(ref.text), err)
	}
	if layer.Size > maxBytes {
		return nil, fmt.Errorf("pull %s: the bundle layer is %d bytes, larger than the limit of %d compressed (twice --max-bundle-bytes)", quoted(ref.text), layer.Size, maxBytes)
	}
	rc, err := repo.Fetch(ctx, layer)
	if err != nil {
		return nil, registryError("pull", ref, err)
	}
	defer rc.Close()
	tarball, err := content.ReadAll(rc, layer)
	if err != nil {
		return nil, registryError("pull", ref, err)
	}
	return tarball, nil
}

// maxIndexDepth is how many image indexes deep bundleManifest follows, as
// OPA's oci downloader does; maxIndexFetches bounds the manifests it
// fetches in all, so that a wide index costs a bounded number of requests.
const (
	maxIndexDepth   = 4
	maxIndexFetches = 64
)

// fetchFunc fetches a manifest that an index names, checked against its
// descriptor.
type fetchFunc func(context.Context, ocispec.Descriptor) ([]byte, error)

// bundleManifest is the image manifest that holds the bundle, found as
// OPA's oci downloader (v1.22.3, download/oci_download.go) finds it: data
// itself when it lists layers, whatever its media type; else, when data is
// an image index, the first manifest it names, depth first, that holds a
// bundle layer, skipping the provenance and SBOM entries that buildx marks
// with platform unknown/unknown and manifests already seen.
func bundleManifest(ctx context.Context, fetch fetchFunc, desc ocispec.Descriptor, data []byte) (*ocispec.Manifest, error) {
	w := indexWalk{fetch: fetch, seen: map[digest.Digest]bool{desc.Digest: true}}
	return w.manifest(ctx, desc, data, 0)
}

// indexWalk follows image indexes to the bundle's manifest.
type indexWalk struct {
	fetch   fetchFunc
	seen    map[digest.Digest]bool
	fetches int
}

func (w *indexWalk) manifest(ctx context.Context, desc ocispec.Descriptor, data []byte, depth int) (*ocispec.Manifest, error) {
	var manifest ocispec.Manifest
	if err := json.Unmarshal(data, &manifest); err != nil {
		return nil, fmt.Errorf("the manifest does not parse: %w", err)
	}
	if len(manifest.Layers) > 0 {
		return &manifest, nil
	}
	var index ocispec.Index
	if err := json.Unmarshal(data, &index); err != nil || len(index.Manifests) == 0 {
		return nil, errNotBundleManifest
	}
	if depth >= maxIndexDepth {
		return nil, fmt.Errorf("image index %s is nested more than %d deep", desc.Digest, maxIndexDepth)
	}
	var first error
	tried := 0
	for _, entry := range index.Manifests {
		if p := entry.Platform; p != nil && p.OS == "unknown" && p.Architecture == "unknown" || w.seen[entry.Digest] {
			continue
		}
		w.seen[entry.Digest] = true
		if w.fetches++; w.fetches > maxIndexFetches {
			return nil, fmt.Errorf("image index %s: no bundle among the first %d manifests it names", desc.Digest, maxIndexFetches)
		}
		child, err := w.fetch(ctx, entry)
		if err == nil {
			var m *ocispec.Manifest
			if m, err = w.manifest(ctx, entry, child, depth+1); err == nil {
				if _, err = bundleLayer(m); err == nil {
					return m, nil
				}
			}
		}
		if tried++; first == nil {
			first = err
		}
	}
	if first == nil {
		return nil, fmt.Errorf("image index %s names no manifest but provenance and ones already seen", desc.Digest)
	}
	return nil, fmt.Errorf("image index %s names no manifest with a bundle layer (%d tried; the first: %w)", desc.Digest, tried, first)
}

// bundleLayer is the bundle layer of an image manifest: its first layer
// of LayerMediaType.
func bundleLayer(manifest *ocispec.Manifest) (ocispec.Descriptor, error) {
	for _, layer := range manifest.Layers {
		if layer.MediaType == LayerMediaType {
			if layer.Size < 0 {
				return ocispec.Descriptor{}, fmt.Errorf("the bundle layer has a negative size")
			}
			return layer, nil
		}
	}
	return ocispec.Descriptor{}, errNotBundleManifest
}
