package rego_test

import (
	"context"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	oparego "github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/reference"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// TestFastPathDecidesCommonCalls evaluates the fast path alone
// (data.hcp.authz._fast) over the grid: every call it decides, it decides
// as the Go reference does, and it does decide each kind of common call,
// so that the differential tests of the whole decision exercise it.
func TestFastPathDecidesCommonCalls(t *testing.T) {
	m := diffModel(t)
	b, err := bundles.Assemble(m, "test")
	if err != nil {
		t.Fatal(err)
	}
	fast := prepareQuery(t, b, "data.hcp.authz._fast")
	ref := reference.New(m)
	kinds := map[string]int{}
	for _, c := range calls(m) {
		for _, pr := range principals {
			for _, mode := range modes {
				for _, ap := range approvals {
					for _, f := range landFacts(pr)[:3] {
						in := reparse(gridInput(c, pr, mode, ap, []any{}, f))
						got := evalOne(t, fast, in)
						if got == nil {
							continue
						}
						want := ref.Decide(in, reference.Ext{})
						if diffs := diffJSON("decision", normalize(got), normalize(want)); len(diffs) > 0 {
							t.Errorf("fast path and reference disagree on %s:\n%s", jsonText(in), strings.Join(diffs, "\n"))
						}
						kinds[fastKind(got)]++
					}
				}
			}
		}
	}
	t.Logf("fast path decisions: %v", kinds)
	for _, kind := range []string{"allowed", "allowed after approval", "confirm_required"} {
		if kinds[kind] == 0 {
			t.Errorf("the fast path decided no %s call in the grid", kind)
		}
	}
}

// fastKind names what kind of call a fast-path decision is.
func fastKind(d map[string]any) string {
	if d["code"] == "allowed" && d["confirm"] != false {
		return "allowed after approval"
	}
	code, _ := d["code"].(string)
	return code
}

// TestFastShapeSize holds every regular expression of the library under
// the 500 instructions below which Go's regexp (OPA's regex.match) uses its
// backtracking matcher: the fast path's input shape check would take about
// three times as long with the matcher Go falls back to.
func TestFastShapeSize(t *testing.T) {
	checked := 0
	for _, mod := range hcprego.Library() {
		parsed, err := ast.ParseModuleWithOpts(mod.Path, string(mod.Source), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			t.Fatal(err)
		}
		for _, pattern := range regexPatterns(parsed) {
			re, err := syntax.Parse(string(pattern.Value.(ast.String)), syntax.Perl)
			if err != nil {
				t.Fatalf("%s: %v", mod.Path, err)
			}
			prog, err := syntax.Compile(re.Simplify())
			if err != nil {
				t.Fatalf("%s: %v", mod.Path, err)
			}
			if n := len(prog.Inst); n > 500 {
				t.Errorf("%s:%d: a regular expression of %d instructions (at most 500)", mod.Path, pattern.Location.Row, n)
			}
			checked++
		}
	}
	if checked < 3 {
		t.Fatalf("found %d regex.match calls with a literal pattern; the walk missed them", checked)
	}
}

// regexPatterns lists the literal patterns of the regex.match calls in a
// module, whether a call stands as an expression or inside one.
func regexPatterns(m *ast.Module) []*ast.Term {
	var out []*ast.Term
	add := func(op *ast.Term, args []*ast.Term) {
		if op.String() == "regex.match" && len(args) > 0 {
			if _, ok := args[0].Value.(ast.String); ok {
				out = append(out, args[0])
			}
		}
	}
	ast.WalkExprs(m, func(e *ast.Expr) bool {
		if e.IsCall() {
			add(e.OperatorTerm(), e.Operands())
		}
		return false
	})
	ast.WalkTerms(m, func(term *ast.Term) bool {
		if call, ok := term.Value.(ast.Call); ok {
			add(call[0], call[1:])
		}
		return false
	})
	return out
}

// prepareQuery prepares query against bundle b as the evaluator does.
func prepareQuery(t *testing.T, b *bundle.Bundle, query string) oparego.PreparedEvalQuery {
	t.Helper()
	if err := hcprego.ParseModules(b); err != nil {
		t.Fatal(err)
	}
	opts := []func(*oparego.Rego){
		oparego.Query(query),
		oparego.Store(inmem.NewFromObjectWithOpts(b.Data, inmem.OptReturnASTValuesOnRead(true))),
		oparego.SetRegoVersion(ast.RegoV1),
	}
	for _, m := range b.Modules {
		opts = append(opts, oparego.ParsedModule(m.Parsed))
	}
	pq, err := oparego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return pq
}

// evalOne evaluates a prepared query that names one document and returns
// the document, or nil when it is undefined.
func evalOne(t *testing.T, pq oparego.PreparedEvalQuery, input any) map[string]any {
	t.Helper()
	rs, err := pq.Eval(context.Background(), oparego.EvalInput(input))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 {
		return nil
	}
	d, _ := rs[0].Expressions[0].Value.(map[string]any)
	return d
}
