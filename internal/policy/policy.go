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
// A Source holds a list of bundles: a policy bundle and, from a sharded
// build (docs/fleet.md#tenant-shards-a-fleet-past-one-bundle), the shards
// a sidecar loads beside it, or the build's folder, read as one policy.
package policy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

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
	// Bundles are bundles as built, each read by Reader: one policy
	// bundle and any shards of its build, or a sharded build's folder
	// (all of its bundles).
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

	read        []string         // the bundles read, as named; none when compiled
	readBundles []*bundle.Bundle // and as read
	reader      BundleReader     // how they were read
}

// Read reads the policy that s names and the runtime's rules, every one
// before any is judged, so that every bad file among them is reported at
// once, in one error. Several bundles are a policy bundle and shards of
// a sharded build (docs/fleet.md), decided with as a sidecar loading them
// all decides.
func Read(ctx context.Context, s Source) (*Policy, error) {
	p := &Policy{reader: s.Reader}
	var errs problem.Errors
	var err error
	if len(s.Bundles) == 0 {
		p.Model, p.Bundle, err = s.compiled()
		errs.Merge("", err)
	} else {
		var read []*bundle.Bundle
		p.read, read, err = s.readBundles(ctx)
		p.readBundles = read
		errs.Merge("", err)
		if err == nil {
			p.Bundle, err = joined(p.read, read)
			errs.Merge("", err)
		}
	}
	p.Ext, err = hcprego.ReadExt(s.Ext, nil)
	errs.Merge("", err)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// joined is the one bundle that bundles read together decide as: one
// bundle with the decision library, and the shards loaded beside it
// (bundles.Merge). names are theirs as given.
func joined(names []string, read []*bundle.Bundle) (*bundle.Bundle, error) {
	var policy *bundle.Bundle
	var shards []*bundle.Bundle
	var libraries []string
	for i, b := range read {
		if _, ok := bundles.Shard(b); ok {
			shards = append(shards, b)
			continue
		}
		policy = b
		libraries = append(libraries, printable.Quote(names[i]))
	}
	switch {
	case len(libraries) > 1:
		return nil, fmt.Errorf("bundles %s each hold the decision library: a sidecar decides with one policy bundle, and a sharded build's shards beside it", strings.Join(libraries, ", "))
	case policy == nil:
		return nil, errors.New("no policy bundle: a shard holds grants alone; give the sharded build's policy bundle (hcp.tar.gz) with it")
	}
	return bundles.Merge(policy, shards), nil
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
	for _, name := range expandFolders(s.Bundles) {
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
		return nil, inBundle(err, p.Bundle, cmp.Or(printable.LineStart(p.name()), "the compiled bundle"), len(p.Ext) > 0)
	}
	return ev, nil
}

// name is the policy bundle's name as given, "" when compiled.
func (p *Policy) name() string {
	for i, name := range p.read {
		if _, shard := bundles.Shard(p.readBundles[i]); !shard {
			return name
		}
	}
	return ""
}
