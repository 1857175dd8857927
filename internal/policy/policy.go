// Package policy reads, in one place, the policy that hcp-rego's deciding
// commands (eval, permissions, replay) decide with: pack folders and grant
// files, checked and compiled, or bundles as built. A bundle is read
// within its limits, its signature verified when a key is given, and
// refused where a sidecar would load it differently from the embedded
// evaluator (docs/bundles.md, "What a sidecar would read differently"):
// roots not hcp-rego's, WebAssembly, roots that
// overlap those of another bundle read with it or of the runtime's rules
// loaded beside it. pull and push read their bundle here too
// (BundleReader). The package then prepares the embedded evaluator for
// the policy, with the runtime's rules (Policy.Evaluator).
//
// A Source holds a list of bundles so that a policy bundle and its tenant
// shards (a sharded build: docs/glossary.md, tenant) can be read as one
// policy; today the evaluator decides with one.
package policy

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// Source names a policy: its Bundles when any is named, else its packs
// and grant files, compiled.
type Source struct {
	// Packs are PACK_DIR arguments (a pack folder, or a folder of packs)
	// and Grants grant files, in order: the first grant in file order is
	// the one a decision names. Limits bound what is read of them.
	Packs, Grants []string
	Limits        compile.Limits
	// Bundles are bundles as built, each read by Reader. Read takes one
	// today.
	Bundles []string
	Reader  BundleReader
	// Ext are the paths of a runtime's own rules (hcprego.ReadExt),
	// loaded beside the policy at bundles.ExtRoot.
	Ext []string
}

// Policy is a policy read and checked, ready for an evaluator.
type Policy struct {
	// Model is the checked model of the packs and grant files; nil for a
	// bundle.
	Model *compile.Model
	// Bundle is what the evaluator decides with: compiled from Model, or
	// read as built.
	Bundle *bundle.Bundle
	// Ext are the runtime's rules, read from Source.Ext.
	Ext []hcprego.Option

	read   []string     // the bundles read, as named; none when compiled
	reader BundleReader // how they were read
}

// errSeveral refuses what Read cannot decide with yet: the flags that
// name bundles take one.
var errSeveral = errors.New("several bundles: the evaluator decides with one")

// Read reads the policy that s names and the runtime's rules, every one
// before any is judged, so that every bad file among them is reported at
// once, in one error.
func Read(ctx context.Context, s Source) (*Policy, error) {
	if len(s.Bundles) > 1 {
		return nil, errSeveral
	}
	p := &Policy{reader: s.Reader}
	var errs problem.Errors
	var err error
	if len(s.Bundles) == 0 {
		p.Model, p.Bundle, err = s.compiled()
		errs.Merge("", err)
	} else {
		var read []*bundle.Bundle
		p.read, read, err = s.readBundles(ctx)
		errs.Merge("", err)
		if len(read) > 0 {
			p.Bundle = read[0]
		}
	}
	p.Ext, err = hcprego.ReadExt(s.Ext, nil)
	errs.Merge("", err)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// compiled checks the packs and grant files within s.Limits and compiles
// them.
func (s Source) compiled() (*compile.Model, *bundle.Bundle, error) {
	m, err := s.Limits.Checked(s.Packs, s.Grants)
	if err != nil {
		return nil, nil, err
	}
	b, err := compile.Compile(m, "")
	return m, b, err
}

// readBundles reads every bundle of s, and checks the roots of those read
// apart from one another's and from the runtime's rules: the names and
// the bundles read, in the order given.
func (s Source) readBundles(ctx context.Context) ([]string, []*bundle.Bundle, error) {
	var errs problem.Errors
	var names []string
	var read []*bundle.Bundle
	var roots []bundles.BundleRoots
	for _, name := range s.Bundles {
		b, err := s.Reader.Read(ctx, name)
		errs.Merge("", err)
		if b == nil {
			continue
		}
		names, read = append(names, name), append(read, b)
		if b.Manifest.Roots != nil {
			roots = append(roots, bundles.BundleRoots{Name: name, Roots: *b.Manifest.Roots})
		}
	}
	// A sidecar loads the runtime's bundle beside these only when no
	// roots overlap (docs/bundles.md); with no rules beside them, a bundle
	// alone is apart from everything.
	if len(s.Ext) > 0 && len(roots) > 0 {
		roots = append(roots, bundles.BundleRoots{Name: "--ext", Roots: []string{bundles.ExtRoot}})
	}
	errs.Merge("", bundles.CheckApart(roots...))
	return names, read, errs.Err()
}

// Evaluator prepares the embedded evaluator for the policy, with the
// runtime's rules and opts. A module that does not type-check is named
// inside the bundle read, or inside "the compiled bundle".
func (p *Policy) Evaluator(ctx context.Context, opts ...hcprego.Option) (*hcprego.Evaluator, error) {
	ev, err := hcprego.New(ctx, p.Bundle, append(slices.Clip(p.Ext), opts...)...)
	if err != nil {
		return nil, hcprego.InBundle(err, p.Bundle, cmp.Or(printable.LineStart(p.name()), "the compiled bundle"), len(p.Ext) > 0)
	}
	return ev, nil
}

// name is the bundle's name as given, "" when compiled.
func (p *Policy) name() string {
	if len(p.read) == 0 {
		return ""
	}
	return p.read[0]
}
