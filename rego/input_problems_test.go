package rego_test

import (
	"context"
	"testing"

	oparego "github.com/open-policy-agent/opa/v1/rego"

	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// TestInputProblemsFollowWellFormed holds the library's two readings of an
// input's shape to each other over random inputs, well formed and not: the
// check the chain runs (_well_formed) holds exactly when the problems an
// invalid_input decision names (_input_problems) are none. The
// differential holds the problems to the Go reference's. So does the
// listing's check, the key aside (_shape_ok), to its problems.
func TestInputProblemsFollowWellFormed(t *testing.T) {
	m := diffModel(t)
	b, err := compile.Compile(m, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := hcprego.ParseModules(b); err != nil {
		t.Fatal(err)
	}
	pq := prepare(t, b, "well := [1 | data.hcp.authz._well_formed]; problems := data.hcp.authz._shape_problems | data.hcp.authz._key_problems; shape := [1 | data.hcp.authz._shape_ok]; shape_problems := data.hcp.authz._shape_problems")
	gen := newRandomInputs(m, 41)
	seen := map[bool]int{}
	for range scaled(3000) {
		in := gen.next()
		rs, err := pq.Eval(context.Background(), oparego.EvalInput(in))
		if err != nil || len(rs) != 1 {
			t.Fatalf("%s: %v (%d results)", jsonText(in), err, len(rs))
		}
		well := len(rs[0].Bindings["well"].([]any)) == 1
		problems := rs[0].Bindings["problems"].([]any)
		if well != (len(problems) == 0) {
			t.Errorf("%s: well formed %v, problems %v", jsonText(in), well, problems)
		}
		shape, shapeProblems := len(rs[0].Bindings["shape"].([]any)) == 1, rs[0].Bindings["shape_problems"].([]any)
		if shape != (len(shapeProblems) == 0) {
			t.Errorf("%s: well formed but for the key %v, problems %v", jsonText(in), shape, shapeProblems)
		}
		seen[well]++
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Errorf("the inputs were not both well formed and not: %v", seen)
	}
}
