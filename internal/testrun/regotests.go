package testrun

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/regolimit"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// parseRegoTests reads and parses the Rego unit test files as Rego v1,
// returning every file's syntax errors and over-long bodies
// (regolimit.CheckBodies), positioned. Each file's terms are
// counted against terms, the run's budget, before it is parsed: a file
// that passes it is refused, and no later file is parsed.
func parseRegoTests(files []string, terms *regolimit.TermBudget) (map[string]*ast.Module, error) {
	mods := map[string]*ast.Module{}
	var errs problem.Errors
	for _, file := range files {
		data, err := document.ReadFile(file)
		if err != nil {
			errs.Merge(file, err)
			continue
		}
		if err := terms.Take(file, data); err != nil {
			errs.Merge(file, err)
			break
		}
		mod, err := ast.ParseModuleWithOpts(file, string(data), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			errs.Merge(file, problem.OPAErrors(file, err))
			continue
		}
		if err := regolimit.CheckBodies(file, mod); err != nil {
			errs.Merge(file, err)
			continue
		}
		mods[file] = mod
	}
	return mods, errs.Err()
}

// runRegoTests runs the test rules of tests with OPA's tester, against the
// modules and data of b (the model of every pack and grant file found);
// only those whose names selected matches, when it is set (OPA's filter
// matches the name a result has, data.PACKAGE.RULE). A compile error (a
// test that does not type-check against the library, say) is bad input.
func runRegoTests(ctx context.Context, b *bundle.Bundle, tests map[string]*ast.Module, selected *regexp.Regexp) ([]*Result, error) {
	if len(tests) == 0 {
		return nil, nil
	}
	if err := hcprego.ParseModules(b); err != nil {
		return nil, err
	}
	mods := map[string]*ast.Module{}
	for _, m := range b.Modules {
		mods[m.Path] = m.Parsed
	}
	for file, m := range tests {
		mods[file] = m
	}
	runner := tester.NewRunner().
		SetStore(inmem.NewFromObject(b.Data)).
		SetModules(mods).
		SetDefaultRegoVersion(ast.RegoV1).
		EnableTracing(true).
		CapturePrintOutput(true)
	if selected != nil {
		runner = runner.Filter(selected.String())
	}
	ch, err := runner.RunTests(ctx, nil)
	if err != nil {
		return nil, problem.OPAErrors("", err)
	}
	var results []*Result
	for tr := range ch {
		if _, ours := tests[tr.Location.File]; ours && (selected == nil || selected.MatchString(tr.Package+"."+tr.Name)) {
			results = append(results, regoResult(tr))
		}
	}
	return results, nil
}

func regoResult(tr *tester.Result) *Result {
	r := &Result{
		Kind:   KindRego,
		Name:   tr.Package + "." + tr.Name,
		File:   tr.Location.File,
		Pos:    problem.Pos{Line: tr.Location.Row, Col: tr.Location.Col},
		Status: Pass,
		// OPA's time for the test, tracing included: the same for each
		// test, so the times compare.
		Duration: tr.Duration,
	}
	switch {
	case tr.Skip:
		r.Status = Skip
	case tr.Error != nil:
		r.Status, r.Message = Fail, "error: "+tr.Error.Error()
	case tr.Fail:
		r.Status, r.Message = Fail, failure(tr)
	}
	if r.Status == Fail && len(tr.Output) > 0 {
		r.Message += "\nprinted: " + strings.TrimSpace(string(tr.Output))
	}
	return r
}

// failure says why a test rule was not true: the failing sub-tests of a
// parameterized test, or the last expression of the test's own file that
// failed, as written (else the last anywhere). An expression of the
// library may fail after the test's: once the test's expression fails,
// OPA tries the expressions before it again (d := authz.decision), and a
// library function of several definitions fails there. opa test's users
// look for the test's line.
func failure(tr *tester.Result) string {
	var failed []string
	for names, sr := range tr.SubResults.Iter {
		if sr.Fail && len(sr.SubResults) == 0 {
			failed = append(failed, strings.Join(names, "/"))
		}
	}
	if len(failed) > 0 {
		slices.Sort(failed)
		return "failed cases: " + strings.Join(failed, ", ")
	}
	var elsewhere *topdown.Event
	for _, e := range slices.Backward(tr.Trace) {
		if e.Op != topdown.FailOp || e.Location == nil || e.QueryID == 0 {
			continue
		}
		if expr, ok := e.Node.(*ast.Expr); ok {
			if _, every := expr.Terms.(*ast.Every); every {
				continue
			}
		}
		if e.Location.File == tr.Location.File {
			return failedAt(e)
		}
		if elsewhere == nil {
			elsewhere = e
		}
	}
	if elsewhere != nil {
		return failedAt(elsewhere)
	}
	return "the test rule is false or undefined"
}

// failedAt names a failed expression by its file, line and first line.
func failedAt(e *topdown.Event) string {
	return fmt.Sprintf("failed at %s:%d: %s", e.Location.File, e.Location.Row, firstLine(string(e.Location.Text)))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}
