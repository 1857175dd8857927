package reference

import (
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/garbagetest"
	"github.com/hcp-rego/hcp-rego/internal/schema"
)

// TestProblemsOnlyForInvalid holds inputProblems to the input schema: it
// names a problem exactly when the schema refuses the input, over the
// garbage corpus and the calls it breaks, so an invalid_input decision
// always says why and a well-formed one is never refused by it.
func TestProblemsOnlyForInvalid(t *testing.T) {
	c, err := garbagetest.Read("../../rego/testdata/garbage.json")
	if err != nil {
		t.Fatal(err)
	}
	inputs := []any{c.Allowed, c.AllowedStimulus}
	for _, g := range c.Garbage {
		inputs = append(inputs, g.Input)
	}
	valid := 0
	for _, in := range inputs {
		ok := schema.Get("input").Valid(in)
		if problems := inputProblems(in); ok != (len(problems) == 0) {
			t.Errorf("%v: the schema says valid=%v, inputProblems %q", in, ok, problems)
		}
		if ok {
			valid++
		}
	}
	if valid != 2 {
		t.Errorf("%d inputs are valid, want the corpus's 2 calls", valid)
	}
}
