package testrun

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/policy"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// caseSet is what the cases of a case file are decided with: its packs
// and grant files, compiled, or its bundles as built (docs/fleet.md), read
// with the runtime's rules at ext as `eval --bundle --ext` reads them.
type caseSet struct {
	packs, grants []string
	bundles, ext  []string
}

// key names the set: two case files with one key share its bundle.
func (s caseSet) key() string {
	if s.bundles != nil {
		return "\x02" + strings.Join(s.bundles, "\x00") + "\x01" + strings.Join(s.ext, "\x00")
	}
	return bundleKey(s.packs, s.grants)
}

// evaluators builds the bundle of each distinct set of packs and grant
// files that case files name, holds the bundles read for each set of
// bundles they name, and an evaluator for each runtime layer that cases
// set on a set. Each evaluator compiles its bundle whole, so what a run
// holds is bounded by release: a set's evaluators last while one case
// file's cases run (the run's own set's without a runtime layer for the
// whole run), and a bundle until the last case file that names its set.
type evaluators struct {
	bundles map[string]*bundle.Bundle
	models  map[string]*compile.Model                // the model each compiled bundle was built from
	read    map[string]*policy.Policy                // the policy of each set of bundles read
	evals   map[string]map[string]*hcprego.Evaluator // by set, then by runtime layer
	kept    string                                   // the set whose bundle and plain evaluator stay
	// runtimeGate makes each evaluator report the runtime's confirm
	// reasons, for --explain (hcprego.WithRuntimeGate).
	runtimeGate bool
	limits      compile.Limits // what a set's packs and grant files may hold
	reader      policy.BundleReader
}

func newEvaluators(limits compile.Limits, reader policy.BundleReader) *evaluators {
	return &evaluators{
		bundles: map[string]*bundle.Bundle{}, models: map[string]*compile.Model{}, read: map[string]*policy.Policy{},
		evals: map[string]map[string]*hcprego.Evaluator{}, limits: limits, reader: reader,
	}
}

// keep marks the set whose bundle, and evaluator without a runtime
// layer, release never drops.
func (e *evaluators) keep(set caseSet) { e.kept = set.key() }

// release drops the evaluators of the set that have a runtime layer, and
// when last, the whole set, unless it is the kept set.
func (e *evaluators) release(set caseSet, last bool) {
	key := set.key()
	for layer := range e.evals[key] {
		if layer != noLayer {
			delete(e.evals[key], layer)
		}
	}
	if last && key != e.kept {
		delete(e.bundles, key)
		delete(e.models, key)
		delete(e.read, key)
		delete(e.evals, key)
	}
}

// noLayer is the runtime layer key of an evaluator with none.
const noLayer = "\x01"

// readBundles reads the bundles of set as `eval --bundle --ext` reads
// them (policy.Read): within the reader's limits, refused where a sidecar
// would load them otherwise, joined as a sidecar loading them all decides.
// The run reads every set before any case runs, so that every bad bundle
// is reported with the run's other problems.
func (e *evaluators) readBundles(ctx context.Context, set caseSet) error {
	key := set.key()
	if _, ok := e.read[key]; ok {
		return nil
	}
	p, err := policy.Read(ctx, policy.Source{Bundles: set.bundles, Reader: e.reader, Ext: set.ext})
	if err != nil {
		return err
	}
	e.read[key], e.bundles[key] = p, p.Bundle
	return nil
}

// bundle returns the bundle of set: read before (readBundles), or
// compiled from its packs and grants (in order: grant order decides
// provenance), checked as every compiled model is.
//
// The run has already linted every file here together with all the
// others, and stops before building any bundle when it found a problem, so
// this check reports nothing twice: it finds what the run found, nothing.
// One difference is by design: a grant on a pack outside this set is
// inert here, not a finding, since the run checked it against all the
// packs, and a case file may test one pack of a shared grant set.
func (e *evaluators) bundle(set caseSet) (*bundle.Bundle, error) {
	key := set.key()
	if b, ok := e.bundles[key]; ok {
		return b, nil
	}
	if set.bundles != nil {
		return nil, errors.New("testrun: bundles used before they were read") // prepare reads them all
	}
	sources := e.limits.Load(set.packs, set.grants)
	sources.Inert(func(g *compile.Grant) bool { return sources.Pack(g.PackID) == nil })
	m, err := sources.Check()
	if err != nil {
		return nil, err
	}
	b, err := compile.Compile(m, "")
	if err != nil {
		return nil, err
	}
	e.bundles[key] = b
	e.models[key] = m
	return b, nil
}

// model returns the model that the bundle of set was built from, for
// --explain; nil before that bundle is built, and for bundles read as
// built, which --explain walks as `eval --bundle --explain` does.
func (e *evaluators) model(set caseSet) *compile.Model {
	return e.models[set.key()]
}

// bundleKey names one set of packs and grant files, in order.
func bundleKey(packs, grants []string) string {
	return strings.Join(packs, "\x00") + "\x01" + strings.Join(grants, "\x00")
}

// evaluator returns the evaluator for set under a case's runtime layer
// ext (nil: none), with the case file's runtime rules.
func (e *evaluators) evaluator(ctx context.Context, set caseSet, ext *Ext, cf *CaseFile) (*hcprego.Evaluator, error) {
	b, err := e.bundle(set)
	if err != nil {
		return nil, err
	}
	module := extModule(ext)
	key, layer := set.key(), module+"\x01"+strings.Join(cf.ExtPaths, "\x00")
	if ev, ok := e.evals[key][layer]; ok {
		return ev, nil
	}
	var opts []hcprego.Option
	if e.runtimeGate {
		opts = append(opts, hcprego.WithRuntimeGate())
	}
	if ext != nil {
		opts = append(opts, hcprego.WithModule("hcp_ext_case.rego", module))
	}
	var ev *hcprego.Evaluator
	if p := e.read[key]; p != nil {
		// The policy holds the runtime's rules it was read with (set.ext).
		ev, err = p.Evaluator(ctx, opts...)
	} else {
		ev, err = hcprego.New(ctx, b, append(slices.Clone(cf.Ext), opts...)...)
	}
	if err != nil {
		return nil, err
	}
	if e.evals[key] == nil {
		e.evals[key] = map[string]*hcprego.Evaluator{}
	}
	e.evals[key][layer] = ev
	return ev, nil
}

// extModule writes a case's runtime layer as the hcp.ext module a runtime
// would load; "" for none.
func extModule(ext *Ext) string {
	if ext == nil {
		return ""
	}
	return "package hcp.ext\n\ndeny := " + regoSet(ext.Deny) + "\n\nconfirm := " + regoSet(ext.Confirm) + "\n"
}

func regoSet(reasons []string) string {
	if len(reasons) == 0 {
		return "set()"
	}
	quoted := make([]string, len(reasons))
	for i, r := range reasons {
		quoted[i] = compact(r)
	}
	return "{" + strings.Join(quoted, ", ") + "}"
}
