package compile

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/encoded"
	"github.com/hcp-rego/hcp-rego/internal/regolimit"
)

// BuildOptions say what Build compiles and where it writes the bundle.
type BuildOptions struct {
	// Packs are pack folders, or folders of them; Grants are grant files,
	// in order (the first grant in file order is the one a decision
	// names).
	Packs, Grants []string
	// Output is the .tar.gz to write. It must not be an input, nor lie
	// inside a pack folder read.
	Output string
	// Revision is the bundle's revision; "" means a digest of its
	// content, so the same inputs give the same revision.
	Revision string
	// Signing signs the bundle with OPA's .signatures.json; nil writes it
	// unsigned.
	Signing *bundles.Signing
	// Limits bound what the build reads of the packs and grant files;
	// the zero value sets the defaults.
	Limits Limits
}

// Built says what Build wrote.
type Built struct {
	Revision      string
	Packs, Grants int
	// Terms are the Rego terms of the bundle's modules, which readers
	// with a term limit (bundles.Limits) count.
	Terms int64
}

// Build does what `hcp-rego build` does, in one call: it reads and checks
// the packs and grant files (every problem at its file:line:col, in one
// error), compiles them, signs the bundle when asked, and writes it to a
// temporary file beside Output that it then renames: on any error nothing
// is written and an existing Output is as it was.
func Build(o BuildOptions) (*Built, error) {
	if !utf8.ValidString(o.Revision) {
		// JSON would write U+FFFD in place of the bad bytes: the manifest,
		// and every sidecar, would name another revision.
		return nil, fmt.Errorf("revision %s: not valid UTF-8", strconv.Quote(o.Revision))
	}
	m, err := o.Limits.Checked(o.Packs, o.Grants)
	if err != nil {
		return nil, err
	}
	inputs := m.Inputs()
	if o.Signing != nil {
		inputs = append(inputs, o.Signing.KeyFile)
	}
	if err := bundles.CheckOutput(o.Output, inputs); err != nil {
		return nil, err
	}
	built := &Built{Packs: len(m.packs), Grants: len(m.grants)}
	b, encodedData, err := compileToWrite(m, o.Revision, 0)
	if err != nil {
		return nil, err
	}
	// Nothing below reads the model, whose grants are garbage from here;
	// nor, unsigned, the grant tables as Go values, which the signature
	// alone hashes: the bundle is written from their JSON. A build then
	// holds neither while it encodes the bundle.
	if o.Signing == nil {
		b.Data = nil
	}
	data, err := encoded.Build(b, o.Signing, encodedData)
	if err != nil {
		return nil, err
	}
	if err := bundles.WriteFileAtomic(o.Output, data); err != nil {
		return nil, err
	}
	built.Revision = b.Manifest.Revision
	for _, mod := range b.Modules {
		n, _ := regolimit.RegoTerms(mod.Raw, math.MaxInt64)
		built.Terms += n
	}
	return built, nil
}
