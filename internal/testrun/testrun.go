// Package testrun runs hcp-rego's policy tests (docs/tests.md): the
// decision cases of case files, evaluated by the embedded evaluator
// against the packs and grants each file names, and Rego unit tests, run
// by OPA's tester against the modules and data compiled from every pack
// and grant file found. It measures coverage of the model itself: which
// rows and confirm gates the cases reached, with which outcomes, and which
// grants gave a capability.
//
// It lives beside rego/ rather than in it because it compiles bundles
// (package bundles), which imports rego.
package testrun

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/discover"
	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/explain"
	"github.com/hcp-rego/hcp-rego/internal/policy"
	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/regolimit"
)

// Options say what one run tests.
type Options struct {
	Paths    []string // folders or files to search; none means "."
	Coverage bool     // measure coverage of the model
	// Explain walks the chain of docs/decisions.md#the-chain for every
	// failing case, as `eval --explain` does (Result.Steps).
	Explain bool
	// Run, when set, runs only the cases and Rego tests whose names
	// (Result.Name) it matches, as opa test --run and go test -run do.
	Run *regexp.Regexp
	// Times adds each test's time to the pretty lines (Report.Times).
	Times bool
	// Limits bound what the run reads of its packs and grant files; the
	// zero value sets the defaults.
	Limits compile.Limits
	// BundleLimits bound what the run reads of each bundle a case file
	// names (the zero value: bundles.DefaultLimits), and BundleHint is
	// what a refusal for them says last: how to raise them.
	BundleLimits bundles.Limits
	BundleHint   string
}

// reader reads the bundles that case files name as o says.
func (o Options) reader() policy.BundleReader {
	limits := o.BundleLimits
	if limits == (bundles.Limits{}) {
		limits = bundles.DefaultLimits
	}
	return policy.BundleReader{Limits: limits, Hint: o.BundleHint}
}

// Run finds the tests under the paths, checks every input (packs, grant
// files, case files and Rego tests; any problem or lint finding is
// returned as positioned errors, and nothing runs), then runs every test.
// Finding no test to run is an error too: a CI job that tests nothing must
// not pass.
func Run(ctx context.Context, o Options) (*Report, error) {
	paths := o.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	// A broken file that discovery meets is reported with every problem
	// that loading the rest finds, not alone.
	found, discoverErr := discover.Discover(paths)
	r, err := prepare(ctx, found, discoverErr, o)
	if err != nil {
		return nil, err
	}
	r.explain = o.Explain
	r.evals.runtimeGate = o.Explain
	r.selected = o.Run
	results, err := r.runCases(ctx)
	if err != nil {
		return nil, err
	}
	regoResults, err := runRegoTests(ctx, r.defaultBundle, r.regoTests, o.Run)
	if err != nil {
		return nil, err
	}
	results = append(results, regoResults...)
	sortResults(results)
	report := &Report{Results: results, Times: o.Times}
	if report.Count(Pass)+report.Count(Fail) == 0 {
		return nil, noTests(paths, o.Run)
	}
	if o.Coverage {
		report.Coverage = measure(r.model, results)
	}
	return report, nil
}

func noTests(paths []string, selected *regexp.Regexp) error {
	msg := "no tests to run: no case in a *.cases.yaml, *.cases.yml or *.cases.json file, and no test_ rule in a *_test.rego file"
	if selected != nil {
		msg = fmt.Sprintf("no tests to run: no case's or Rego test's name matches --run %s", printable.Quote(strconv.Quote(selected.String())))
	}
	return &problem.Error{File: strings.Join(paths, " "), Msg: msg}
}

// run is one run's checked inputs.
type run struct {
	found     *discover.Found
	caseFiles []*CaseFile
	// unrun are the case files that failed to load but whose packs and
	// grant files are known: those are still read and linted.
	unrun     []*CaseFile
	model     *compile.Model // every pack and grant file found or named
	regoTests map[string]*ast.Module
	evals     *evaluators
	explain   bool           // walk the chain for each failing case
	selected  *regexp.Regexp // the names to run; nil for all

	// defaultBundle is compiled from every pack and grant file found: the
	// Rego tests run against it.
	defaultBundle *bundle.Bundle
}

// prepare loads and checks every input of the run, reporting every problem
// in every file at once: o's limits bound what it reads.
func prepare(ctx context.Context, found *discover.Found, discoverErr error, o Options) (*run, error) {
	limits := o.Limits
	r := &run{found: found, evals: newEvaluators(limits, o.reader())}
	var errs problem.Errors
	errs.Merge("", discoverErr)
	// A folder discovery could not walk, or a case file whose packs are
	// not known, may hold or name the packs that a grant is about.
	packsMissing := found.Incomplete
	// Values and alias expansion are bounded across all the case files,
	// not each alone.
	budget := document.NewBudget()
	// So are the terms of the Rego modules: runtime rules and Rego tests.
	terms := regolimit.NewTermBudget()
	for _, path := range found.CaseFiles {
		cf, err := LoadCaseFile(path, budget, terms)
		errs.Merge(path, err)
		switch {
		case err == nil:
			r.caseFiles = append(r.caseFiles, cf)
		case cf != nil && cf.packsKnown:
			r.unrun = append(r.unrun, cf)
		default:
			packsMissing = true
		}
	}
	tests, err := parseRegoTests(found.RegoTests, terms)
	errs.Merge("", err)
	r.regoTests = tests
	packs, grants := r.allInputs()
	sources := limits.Load(packs, grants)
	if packsMissing {
		sources.MarkPacksMissing()
	}
	sources.Inert(inertInRun(sources, found))
	r.readBundles(ctx, &errs)
	if len(errs) > 0 {
		errs.Merge("", sources.Problems())
		return nil, errs.Err()
	}
	if r.model, err = sources.Check(); err != nil {
		return nil, err
	}
	own := caseSet{packs: found.Packs, grants: found.GrantFiles}
	b, err := r.evals.bundle(own)
	if err != nil {
		return nil, err
	}
	r.defaultBundle = b
	r.evals.keep(own)
	return r, nil
}

// readBundles reads the bundles of every case file that names some,
// adding what is wrong with them to errs: a refusal that names no file
// of its own (two policy bundles, a shard without one) stands at the case
// file's bundles.
func (r *run) readBundles(ctx context.Context, errs *problem.Errors) {
	for _, cf := range r.caseFiles {
		if cf.Bundles == nil {
			continue
		}
		var read problem.Errors
		read.Merge("", r.evals.readBundles(ctx, r.setOf(cf)))
		for _, e := range read {
			if e.File == "" && e.In == "" {
				e.File, e.Pos, e.Msg = cf.Path, cf.bundlesPos, "bundles: "+e.Msg
			}
		}
		*errs = append(*errs, read...)
	}
}

// allInputs lists every pack and grant file that the run found or that a
// case file names, each once, found ones first.
func (r *run) allInputs() (packs, grants []string) {
	packs, grants = slices.Clone(r.found.Packs), slices.Clone(r.found.GrantFiles)
	for _, cf := range slices.Concat(r.caseFiles, r.unrun) {
		for _, p := range cf.Packs {
			if !slices.Contains(packs, p) {
				packs = append(packs, p)
			}
		}
		for _, g := range cf.Grants {
			if !slices.Contains(grants, g) {
				grants = append(grants, g)
			}
		}
	}
	return packs, grants
}

// inertInRun says which grants the run does not lint. A grant file that
// only a case file names may hold grants on packs this run does not load
// (the case file tests one pack of a repository's shared grant set): those
// grants are inert here, not findings. Every grant of a file that the run
// found, and every grant on a loaded pack, is linted in full, so a
// mistyped pack_id in the tested tree is still a finding.
func inertInRun(sources *compile.Sources, found *discover.Found) func(*compile.Grant) bool {
	foundFiles := map[string]bool{}
	for _, f := range found.GrantFiles {
		foundFiles[filepath.ToSlash(f)] = true
	}
	return func(g *compile.Grant) bool {
		return !foundFiles[g.File] && sources.Pack(g.PackID) == nil
	}
}

// setOf is what a case file's cases are decided with: its bundles, or
// its packs and grant files (every one found, for those it does not
// name).
func (r *run) setOf(cf *CaseFile) caseSet {
	if cf.Bundles != nil {
		return caseSet{bundles: cf.Bundles, ext: cf.ExtPaths}
	}
	set := caseSet{packs: cf.Packs, grants: cf.Grants}
	if set.packs == nil {
		set.packs = r.found.Packs
	}
	if set.grants == nil {
		set.grants = r.found.GrantFiles
	}
	return set
}

// runCases decides every case and compares the decision with its want.
// After each case file, what only it needs is released.
func (r *run) runCases(ctx context.Context) ([]*Result, error) {
	last := map[string]int{} // each set's last case file
	for i, cf := range r.caseFiles {
		last[r.setOf(cf).key()] = i
	}
	var results []*Result
	for i, cf := range r.caseFiles {
		set := r.setOf(cf)
		got, err := r.runCaseFile(ctx, cf, set)
		if err != nil {
			return nil, err
		}
		results = append(results, got...)
		r.evals.release(set, last[set.key()] == i)
	}
	return results, nil
}

// runCaseFile decides the cases of cf with set.
func (r *run) runCaseFile(ctx context.Context, cf *CaseFile, set caseSet) ([]*Result, error) {
	var results []*Result
	for _, c := range cf.Cases {
		if r.selected != nil && !r.selected.MatchString(c.Name) {
			continue
		}
		ev, err := r.evals.evaluator(ctx, set, c.Ext, cf)
		if err != nil {
			return nil, err
		}
		res := &Result{Kind: KindCase, Name: c.Name, File: c.File, Pos: c.Pos, Status: Pass, asBuilt: cf.Bundles != nil}
		start := time.Now()
		decided, err := ev.Decide(ctx, c.Input)
		if err != nil {
			res.Status, res.Message = Fail, err.Error()
		} else {
			res.Decision = &decided.Decision
			if res.Diffs = Diff(c.Want, r.comparedDoc(cf, decided.Decision.Doc, c.Want)); len(res.Diffs) > 0 {
				res.Status = Fail
			}
		}
		res.Duration = time.Since(start)
		if r.explain && res.Status == Fail && res.Decision != nil {
			b, _ := r.evals.bundle(set) // read already: it made ev
			res.Steps = explain.ExplainSharded(bundles.ShardingOf(b), r.evals.model(set), c.Input, *res.Decision, decided.RuntimeConfirm, explain.InputProblems(c.File, c.input))
		}
		results = append(results, res)
	}
	return results, nil
}

// comparedDoc is the decision document doc as a case of cf compares it
// with want: with bundles, as they decided it, since their sources are
// paths as the build was given them, which a sidecar's decision names
// too; with packs and grant files, with its sources relative to the case
// file (caseSources).
func (r *run) comparedDoc(cf *CaseFile, doc, want map[string]any) map[string]any {
	if cf.Bundles != nil {
		return doc
	}
	return caseSources(doc, want, cf.Path)
}
