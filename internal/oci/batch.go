package oci

import (
	"bytes"
	"context"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
)

// maxTag is the longest tag OCI's distribution spec allows.
const maxTag = 128

// Tag is r's tag, "" when r names a digest.
func (r Reference) Tag() string {
	if _, err := r.Digest(); err == nil {
		return ""
	}
	return r.Reference.Reference
}

// Tagged is r's repository at tag: the reference of another bundle pushed
// beside r's (a sharded build's shard). A tag that OCI does not allow
// (over 128 characters, or a character other than letters, digits, "_",
// "." and "-") is refused.
func (r Reference) Tagged(tag string) (Reference, error) {
	parsed := r.Reference
	parsed.Reference = tag
	text := parsed.Registry + "/" + parsed.Repository + ":" + tag
	if len(tag) > maxTag {
		return Reference{}, fmt.Errorf("REF %s: the tag %s would be %d characters, over OCI's %d: give REF a shorter tag", quoted(r.text), quoted(tag), len(tag), maxTag)
	}
	if err := parsed.ValidateReferenceAsTag(); err != nil {
		return Reference{}, fmt.Errorf("REF %s: %s is not a tag OCI allows", quoted(r.text), quoted(tag))
	}
	return Reference{Reference: parsed, text: text}, nil
}

// Batch pushes several bundles into one repository so that no tag moves
// until every bundle is stored: Stage stores each bundle's blobs and
// manifest by digest, under no tag, and Commit then puts each manifest
// under its tag, in the order staged. A sharded build's folder is pushed
// so (docs/fleet.md): a push that fails while storing moves no tag.
type Batch struct {
	repo   *remote.Repository
	base   Reference
	staged []staged
}

// staged is a bundle stored by digest, to be tagged by Commit.
type staged struct {
	ref      Reference
	desc     ocispec.Descriptor
	manifest []byte
}

// NewBatch opens the repository of base for a batch; every reference
// staged must be in it.
func (r Remote) NewBatch(base Reference) (*Batch, error) {
	repo, err := r.repository(base)
	if err != nil {
		return nil, err
	}
	return &Batch{repo: repo, base: base}, nil
}

// Stage stores the bundle tarball (read and checked by the caller) with
// its revision in the batch's repository, as Push lays it out, by digest
// alone; the tag of ref (which must be a tag of that repository) moves
// at Commit. It returns the manifest's digest, the one Push would print.
// Blobs and a manifest the registry holds already are not sent again.
func (b *Batch) Stage(ctx context.Context, ref Reference, tarball []byte, revision string) (string, error) {
	if ref.Registry != b.base.Registry || ref.Repository != b.base.Repository || ref.Tag() == "" {
		return "", fmt.Errorf("REF %s: not a tag of the repository of %s", quoted(ref.text), quoted(b.base.text))
	}
	store, desc, err := Pack(ctx, tarball, revision)
	if err != nil {
		return "", err
	}
	manifest, err := content.FetchAll(ctx, store, desc)
	if err != nil {
		return "", fmt.Errorf("pack the bundle: %w", err)
	}
	opts := oras.CopyGraphOptions{Concurrency: 2}
	if err := oras.CopyGraph(ctx, store, b.repo, desc, opts); err != nil {
		return "", registryError("push", ref, err)
	}
	b.staged = append(b.staged, staged{ref: ref, desc: desc, manifest: manifest})
	return desc.Digest.String(), nil
}

// Commit puts each bundle staged under its tag, in the order staged. On
// an error the tags before the one named have moved and the rest have
// not; the error says how many moved.
func (b *Batch) Commit(ctx context.Context) error {
	for i, s := range b.staged {
		if err := b.repo.PushReference(ctx, s.desc, bytes.NewReader(s.manifest), s.ref.Tag()); err != nil {
			return fmt.Errorf("%w (%d of %d tags moved before it, the rest kept theirs)", registryError("push", s.ref, err), i, len(b.staged))
		}
	}
	return nil
}
