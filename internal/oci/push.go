package oci

import (
	"bytes"
	"context"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"
)

// created is the manifest's org.opencontainers.image.created: oras-go
// writes the time of the push unless it is given, and a fixed value (the
// Unix epoch, as SOURCE_DATE_EPOCH=0 builds write) keeps the same bundle
// at the same digest.
const created = "1970-01-01T00:00:00Z"

// config is the config blob: an empty JSON object, which every registry
// takes and OPA does not read.
var config = []byte("{}")

// Pack lays the bundle tarball out as the image manifest of docs/fleet.md
// (push) in a store in memory, and returns the store and the manifest's
// descriptor. The same tarball and revision give the same manifest, byte
// for byte.
func Pack(ctx context.Context, tarball []byte, revision string) (*memory.Store, ocispec.Descriptor, error) {
	store := memory.New()
	layer := content.NewDescriptorFromBytes(LayerMediaType, tarball)
	configDesc := content.NewDescriptorFromBytes(ConfigMediaType, config)
	for _, blob := range []struct {
		desc ocispec.Descriptor
		data []byte
	}{{layer, tarball}, {configDesc, config}} {
		if err := store.Push(ctx, blob.desc, bytes.NewReader(blob.data)); err != nil {
			return nil, ocispec.Descriptor{}, fmt.Errorf("pack the bundle: %w", err)
		}
	}
	annotations := map[string]string{ocispec.AnnotationCreated: created}
	if revision != "" {
		annotations[RevisionAnnotation] = revision
	}
	manifest, err := oras.PackManifest(ctx, store, oras.PackManifestVersion1_1, "", oras.PackManifestOptions{
		Layers:              []ocispec.Descriptor{layer},
		ConfigDescriptor:    &configDesc,
		ManifestAnnotations: annotations,
	})
	if err == nil {
		// oras.Copy resolves its source by reference.
		err = store.Tag(ctx, manifest, manifest.Digest.String())
	}
	if err != nil {
		return nil, ocispec.Descriptor{}, fmt.Errorf("pack the bundle: %w", err)
	}
	return store, manifest, nil
}

// Push stores the bundle tarball (read and checked by the caller) at ref
// with its revision, and returns the manifest's digest. oras.Copy stores
// the blobs (those the registry holds already are skipped) before the
// manifest, and the manifest is put under the tag last, so that the tag
// moves only once everything it names is stored; a failed push leaves it
// where it was. A ref by digest must name the digest of the bundle's
// manifest.
func (r Remote) Push(ctx context.Context, ref Reference, tarball []byte, revision string) (string, error) {
	store, manifest, err := Pack(ctx, tarball, revision)
	if err != nil {
		return "", err
	}
	if d, err := ref.Digest(); err == nil && d != manifest.Digest {
		return "", fmt.Errorf("REF %s names digest %s, but the bundle's manifest is %s", quoted(ref.text), d, manifest.Digest)
	}
	repo, err := r.repository(ref)
	if err != nil {
		return "", err
	}
	opts := oras.CopyOptions{}
	opts.Concurrency = 2
	if _, err := oras.Copy(ctx, store, manifest.Digest.String(), repo, ref.Reference.Reference, opts); err != nil {
		return "", registryError("push", ref, err)
	}
	return manifest.Digest.String(), nil
}
