package rego

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	oparego "github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"golang.org/x/sync/errgroup"

	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// DecisionQuery is the query every evaluator and every OPA sidecar asks.
const DecisionQuery = "data.hcp.authz.decision"

// query asks for the decision and the GPARS error in one evaluation, so the
// error reuses the decision's work; gpars is [] when no error is defined.
const query = "decision := data.hcp.authz.decision; gpars := [e | e := data.hcp.authz.gpars_error]"

// gateQuery asks too for the reasons of the runtime's confirm rule, which
// an allowed decision does not carry though the call passed its gate
// (WithRuntimeGate).
const gateQuery = query + "; runtime_confirm := [r | r := data.hcp.authz._confirm_reasons]"

// Evaluator decides calls, and lists what a principal may do, against one
// bundle. Its queries are prepared once, over one compilation of the
// bundle; Decide and Permissions are safe for concurrent use.
type Evaluator struct {
	prepared oparego.PreparedEvalQuery
	listing  oparego.PreparedEvalQuery
}

// Result is one decision: the document of
// docs/decisions.md#the-decision-document and the GPARS error object, nil
// when none is defined.
type Result struct {
	Decision   Decision
	GPARSError map[string]any
	// RuntimeConfirm holds the reasons of the runtime's confirm rule when
	// it put a gate on the call (WithRuntimeGate only).
	RuntimeConfirm []any
}

// Option is one more Rego module that an evaluator loads beside the
// bundle, such as a runtime's hcp.ext rules.
type Option struct {
	name, source string
	parsed       *ast.Module // when the module was parsed already
	runtimeGate  bool        // WithRuntimeGate, which loads no module
}

// WithRuntimeGate makes Decide report the runtime's confirm reasons too
// (Result.RuntimeConfirm), for explain: one more rule a decision.
func WithRuntimeGate() Option { return Option{runtimeGate: true} }

// WithModule loads one more Rego module, named name.
func WithModule(name, source string) Option { return Option{name: name, source: source} }

// New prepares an evaluator for bundle b, parsing its modules first if
// they are not parsed yet.
func New(ctx context.Context, b *bundle.Bundle, options ...Option) (*Evaluator, error) {
	if err := ParseModules(b); err != nil {
		return nil, err
	}
	// The store hands out AST values, so a decision's lookups into the
	// grant tables convert nothing (OPA's --optimize-store-for-read-speed).
	store := inmem.NewFromObjectWithOpts(b.Data, inmem.OptReturnASTValuesOnRead(true))
	q := query
	compiler := ast.NewCompiler()
	opts := []func(*oparego.Rego){
		oparego.Store(store),
		oparego.Compiler(compiler),
		oparego.SetRegoVersion(ast.RegoV1),
	}
	inBundle := map[string]bool{}
	for _, m := range b.Modules {
		opts = append(opts, oparego.ParsedModule(m.Parsed))
		inBundle[m.Path] = true
	}
	for _, o := range options {
		if o.runtimeGate {
			q = gateQuery
			continue
		}
		if inBundle[o.name] {
			// OPA would load it in place of the bundle's module.
			return nil, &problem.Error{File: o.name, Msg: "a module of the bundle has this name: a runtime's module cannot replace one"}
		}
		if o.parsed != nil {
			opts = append(opts, oparego.ParsedModule(o.parsed))
			continue
		}
		opts = append(opts, oparego.Module(o.name, o.source))
	}
	prepared, err := oparego.New(append(opts, oparego.Query(q))...).PrepareForEval(ctx)
	var compileErrs ast.Errors
	if errors.As(err, &compileErrs) {
		// A module that does not type-check (a runtime's rule, or a
		// bundle's): named at its file, line and column.
		return nil, problem.OPAErrors("", compileErrs)
	}
	if err != nil {
		return nil, fmt.Errorf("prepare decision query: %w", err)
	}
	// The listing's query reuses the compiled modules: no module is
	// given, so none is compiled again.
	listing, err := oparego.New(oparego.Store(store), oparego.Compiler(compiler), oparego.SetRegoVersion(ast.RegoV1),
		oparego.Query(permissionsQuery)).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare permissions query: %w", err)
	}
	return &Evaluator{prepared: prepared, listing: listing}, nil
}

// Decide evaluates the decision for input, a decoded JSON value.
func (e *Evaluator) Decide(ctx context.Context, input any) (*Result, error) {
	rs, err := e.prepared.Eval(ctx, oparego.EvalInput(input))
	if err != nil {
		return nil, fmt.Errorf("evaluate decision: %w", err)
	}
	if len(rs) != 1 {
		return nil, fmt.Errorf("evaluate decision: %d results, want 1 (the library must define decision for every input)", len(rs))
	}
	r := &Result{}
	doc, _ := rs[0].Bindings["decision"].(map[string]any)
	r.Decision = DecisionOf(doc)
	if errs, _ := rs[0].Bindings["gpars"].([]any); len(errs) == 1 {
		r.GPARSError, _ = errs[0].(map[string]any)
	}
	if gate, _ := rs[0].Bindings["runtime_confirm"].([]any); len(gate) == 1 {
		r.RuntimeConfirm, _ = gate[0].([]any)
	}
	if doc == nil {
		return nil, fmt.Errorf("evaluate decision: not an object: %v", rs[0].Bindings["decision"])
	}
	return r, nil
}

// ParseModules parses every module of b that is not parsed yet, on all
// CPUs. An assembled bundle leaves them unparsed, since writing it needs
// only their bytes.
func ParseModules(b *bundle.Bundle) error {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range b.Modules {
		mf := &b.Modules[i]
		if mf.Parsed != nil {
			continue
		}
		g.Go(func() error {
			parsed, err := ast.ParseModuleWithOpts(mf.Path, string(mf.Raw), ast.ParserOptions{RegoVersion: ast.RegoV1})
			if err != nil {
				return fmt.Errorf("parse %s: %w", printable.Quote(mf.Path), err)
			}
			mf.Parsed = parsed
			return nil
		})
	}
	return g.Wait()
}
