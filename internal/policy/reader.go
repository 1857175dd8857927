package policy

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/oci"
)

// BundleReader reads a bundle to decide with, as every command that reads
// one reads it: within Limits, its signature verified with Verify, and
// checked as bundles.ReadDecisionBundle checks it (the decision library,
// hcp-rego's roots, no WebAssembly, the provenance its manifest names).
type BundleReader struct {
	// Verify checks the bundle's signature; nil checks none.
	Verify *bundles.Verification
	// Limits bound what is read of the bundle (bundles.DefaultLimits, or
	// bundles.LimitsOf a flag's size).
	Limits bundles.Limits
	// Hint is what a refusal for the limits says last: how to raise them.
	Hint string
	// Registry, when set, pulls the bundle that an OCI reference names
	// where no file or folder has that name; nil reads paths only.
	Registry *oci.Remote
}

// Read reads the bundle name: a .tar.gz file or a bundle folder, or with
// a Registry, when no such path is there and name is an OCI reference,
// the bundle pulled as Pull pulls it.
func (r BundleReader) Read(ctx context.Context, name string) (*bundle.Bundle, error) {
	if r.Registry != nil {
		if _, err := os.Lstat(name); err != nil {
			if ref, refErr := oci.ParseReference(name); refErr == nil {
				b, _, err := r.Pull(ctx, ref)
				return b, err
			}
		}
	}
	b, err := bundles.ReadDecisionBundle(name, r.Verify, r.Limits)
	return b, r.hint(err)
}

// Pull fetches the bundle at ref from r.Registry (a zero Remote when
// nil) as OPA's oci service finds it, and reads it as Read reads a file:
// the bundle, and its bytes as fetched. The archive may hold twice
// Limits.TotalBytes, as a file may.
func (r BundleReader) Pull(ctx context.Context, ref oci.Reference) (*bundle.Bundle, []byte, error) {
	var remote oci.Remote
	if r.Registry != nil {
		remote = *r.Registry
	}
	data, err := remote.Pull(ctx, ref, 2*r.Limits.TotalBytes)
	if err != nil {
		return nil, nil, err
	}
	b, err := bundles.ReadDecisionTarball(ref.String(), data, r.Verify, r.Limits)
	return b, data, r.hint(err)
}

// ReadFile reads the bundle tarball at path as Read reads it, and returns
// its bytes too, to be sent as they are: the bytes checked are the bytes
// sent.
func (r BundleReader) ReadFile(path string) (*bundle.Bundle, []byte, error) {
	data, err := bundles.ReadTarballFile(path, r.Limits)
	if err != nil {
		return nil, nil, r.hint(err)
	}
	b, err := bundles.ReadDecisionTarball(path, data, r.Verify, r.Limits)
	if err != nil {
		return nil, nil, r.hint(err)
	}
	return b, data, nil
}

// hint adds r.Hint to a refusal for the limits (a *bundles.LimitError).
func (r BundleReader) hint(err error) error {
	if over := (*bundles.LimitError)(nil); r.Hint != "" && errors.As(err, &over) {
		return fmt.Errorf("%w; %s", err, r.Hint)
	}
	return err
}
