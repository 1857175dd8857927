package rego_test

import (
	"context"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	oparego "github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/reference"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// TestChainAloneAgrees holds the chain (data.hcp.authz._chain), reached
// without decision's first branch, to the Go reference over the grid, and
// the first branch (data.hcp.authz._common) too on every call it takes; it
// also shows that the first branch takes allowed, approved and
// confirm_required calls, so that both are tested on the common calls.
func TestChainAloneAgrees(t *testing.T) {
	m := diffModel(t)
	b, err := compile.Compile(m, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := hcprego.ParseModules(b); err != nil {
		t.Fatal(err)
	}
	opts := []func(*oparego.Rego){
		oparego.Query("chain := data.hcp.authz._chain; common := [c | c := data.hcp.authz._common]"),
		oparego.Store(inmem.NewFromObject(b.Data)),
		oparego.SetRegoVersion(ast.RegoV1),
	}
	for _, mod := range b.Modules {
		opts = append(opts, oparego.ParsedModule(mod.Parsed))
	}
	pq, err := oparego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ref := reference.New(m.Packs(), m.Grants())
	taken, grid := map[string]int{}, newSample(1)
	for _, c := range calls(m) {
		for _, pr := range principals {
			for _, mode := range modes {
				for _, ap := range approvals {
					for _, f := range landFacts(pr)[:3] {
						if !grid.keep() {
							continue
						}
						in := reparse(gridInput(c, pr, mode, ap, []any{}, f))
						rs, err := pq.Eval(context.Background(), oparego.EvalInput(in))
						if err != nil || len(rs) != 1 {
							t.Fatalf("%s: %v (%d results)", jsonText(in), err, len(rs))
						}
						want := normalize(ref.Decide(in, reference.Ext{}))
						if diffs := diffJSON("chain", normalize(rs[0].Bindings["chain"]), want); len(diffs) > 0 {
							t.Errorf("the chain and the reference disagree on %s:\n%s", jsonText(in), strings.Join(diffs, "\n"))
						}
						if common, _ := rs[0].Bindings["common"].([]any); len(common) == 1 {
							if diffs := diffJSON("common", normalize(common[0]), want); len(diffs) > 0 {
								t.Errorf("the first branch and the reference disagree on %s:\n%s", jsonText(in), strings.Join(diffs, "\n"))
							}
							taken[commonKind(common[0])]++
						}
					}
				}
			}
		}
	}
	t.Logf("calls the first branch took: %v", taken)
	for _, kind := range []string{"allowed", "allowed after approval", "confirm_required"} {
		if taken[kind] == 0 {
			t.Errorf("the first branch took no %s call of the grid", kind)
		}
	}
}

// commonKind names what kind of call a decision of the first branch is.
func commonKind(d any) string {
	doc, _ := d.(map[string]any)
	if doc["code"] == "allowed" && doc["confirm"] != false {
		return "allowed after approval"
	}
	code, _ := doc["code"].(string)
	return code
}
