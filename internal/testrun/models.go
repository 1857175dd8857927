package testrun

import (
	"context"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// evaluators builds the bundle of each distinct set of packs and grant
// files that case files name, and an evaluator for each runtime layer
// that cases set on it. Each evaluator compiles its bundle whole, so
// what a run holds is bounded by release: a set's evaluators last while
// one case file's cases run (the run's own set's without a runtime layer
// for the whole run), and a bundle until the last case file that names
// its set.
type evaluators struct {
	bundles map[string]*bundle.Bundle
	models  map[string]*compile.Model                // the model each bundle was built from
	evals   map[string]map[string]*hcprego.Evaluator // by bundle, then by runtime layer
	kept    string                                   // the set whose bundle and plain evaluator stay
	// runtimeGate makes each evaluator report the runtime's confirm
	// reasons, for --explain (hcprego.WithRuntimeGate).
	runtimeGate bool
	limits      compile.Limits // what a set's packs and grant files may hold
}

func newEvaluators(limits compile.Limits) *evaluators {
	return &evaluators{bundles: map[string]*bundle.Bundle{}, models: map[string]*compile.Model{}, evals: map[string]map[string]*hcprego.Evaluator{}, limits: limits}
}

// keep marks the set of packs and grants whose bundle, and evaluator
// without a runtime layer, release never drops.
func (e *evaluators) keep(packs, grants []string) { e.kept = bundleKey(packs, grants) }

// release drops the evaluators of the set of packs and grants that have a
// runtime layer, and when last, the whole set, unless it is the kept set.
func (e *evaluators) release(packs, grants []string, last bool) {
	set := bundleKey(packs, grants)
	for layer := range e.evals[set] {
		if layer != noLayer {
			delete(e.evals[set], layer)
		}
	}
	if last && set != e.kept {
		delete(e.bundles, set)
		delete(e.models, set)
		delete(e.evals, set)
	}
}

// noLayer is the runtime layer key of an evaluator with none.
const noLayer = "\x01"

// bundle returns the bundle compiled from packs and grants (in order:
// grant order decides provenance), checked as every compiled model is.
//
// The run has already linted every file here together with all the
// others, and stops before building any bundle when it found a problem, so
// this check reports nothing twice: it finds what the run found, nothing.
// One difference is by design: a grant on a pack outside this set is
// inert here, not a finding, since the run checked it against all the
// packs, and a case file may test one pack of a shared grant set.
func (e *evaluators) bundle(packs, grants []string) (*bundle.Bundle, error) {
	key := bundleKey(packs, grants)
	if b, ok := e.bundles[key]; ok {
		return b, nil
	}
	sources := e.limits.Load(packs, grants)
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

// model returns the model that the bundle of packs and grants was built
// from, for --explain; nil before that bundle is built.
func (e *evaluators) model(packs, grants []string) *compile.Model {
	return e.models[bundleKey(packs, grants)]
}

// bundleKey names one set of packs and grant files, in order.
func bundleKey(packs, grants []string) string {
	return strings.Join(packs, "\x00") + "\x01" + strings.Join(grants, "\x00")
}

// evaluator returns the evaluator for packs and grants under a case's
// runtime layer ext (nil: none), or with the case file's runtime rules.
func (e *evaluators) evaluator(ctx context.Context, packs, grants []string, ext *Ext, cf *CaseFile) (*hcprego.Evaluator, error) {
	b, err := e.bundle(packs, grants)
	if err != nil {
		return nil, err
	}
	module := extModule(ext)
	set, layer := bundleKey(packs, grants), module+"\x01"+strings.Join(cf.ExtPaths, "\x00")
	if ev, ok := e.evals[set][layer]; ok {
		return ev, nil
	}
	opts := slices.Clone(cf.Ext)
	if e.runtimeGate {
		opts = append(opts, hcprego.WithRuntimeGate())
	}
	if ext != nil {
		opts = append(opts, hcprego.WithModule("hcp_ext_case.rego", module))
	}
	ev, err := hcprego.New(ctx, b, opts...)
	if err != nil {
		return nil, err
	}
	if e.evals[set] == nil {
		e.evals[set] = map[string]*hcprego.Evaluator{}
	}
	e.evals[set][layer] = ev
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
