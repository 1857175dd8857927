// Package encoded writes a bundle whose largest data is already encoded
// as JSON: `hcp-rego build` encodes the rows and the grant tables once,
// for the revision's digest, and writes those bytes, rather than encode
// them again in OPA's bundle writer. It is not API: compile builds with
// it, and what it writes is what bundles.Build writes for the same
// bundle.
package encoded

import (
	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// Build is bundles.Build for a bundle whose data is also given with parts
// already encoded as JSON (json.RawMessage): b is signed as it is, and
// written with data in place of its own, so that the writer does not
// encode those parts again. data must be the same data: the bytes are
// those bundles.Build writes.
func Build(b *bundle.Bundle, signing *bundles.Signing, data map[string]any) ([]byte, error) {
	if signing != nil {
		if err := signing.Sign(b); err != nil {
			return nil, err
		}
	}
	written := *b
	written.Data = data
	return bundles.Encode(&written)
}
