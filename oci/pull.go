package oci

import (
	"context"
	"encoding/json"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
)

// Pull fetches the bundle tarball at ref as OPA's oci downloader finds
// it: the first layer of LayerMediaType of the image manifest. The
// manifest and the layer are checked against their digests; a layer
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
	layer, err := bundleLayer(desc, data)
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

// bundleLayer is the bundle layer of the manifest data, described by
// desc.
func bundleLayer(desc ocispec.Descriptor, data []byte) (ocispec.Descriptor, error) {
	if desc.MediaType != ocispec.MediaTypeImageManifest {
		return ocispec.Descriptor{}, fmt.Errorf("the reference names a %s, not an image manifest", desc.MediaType)
	}
	var manifest ocispec.Manifest
	if err := json.Unmarshal(data, &manifest); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("the manifest does not parse: %w", err)
	}
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
