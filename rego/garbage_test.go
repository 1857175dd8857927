package rego_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/garbagetest"
	"github.com/hcp-rego/hcp-rego/internal/reference"
	"github.com/hcp-rego/hcp-rego/internal/schema"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// readGarbage reads the garbage corpus this package keeps (see garbagetest).
func readGarbage(t testing.TB) garbagetest.Corpus {
	t.Helper()
	c, err := garbagetest.Read("testdata/garbage.json")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wantInvalidGPARS is its GPARS error, exactly
// (docs/decisions.md#the-decision-document).
var wantInvalidGPARS = map[string]any{
	"code":    json.Number("-32001"),
	"message": "The request is not permitted for this agent.",
	"data":    map[string]any{"gpars_code": "AUTHORIZATION_DENIED"},
}

// exampleModel loads the example packs and grant files in testdata/.
func exampleModel(t testing.TB) *compile.Model {
	t.Helper()
	m, err := compile.Checked([]string{"../testdata/packs"}, []string{"../testdata/grants/acme.json", "../testdata/grants/defaults.json"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exampleEvaluator prepares the embedded evaluator on m's bundle.
func exampleEvaluator(t testing.TB, m *compile.Model, options ...hcprego.Option) *hcprego.Evaluator {
	t.Helper()
	b, err := compile.Compile(m, "")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := hcprego.New(context.Background(), b, options...)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestGarbageInputIsInvalid decides every garbage input with the embedded
// evaluator: exactly the invalid_input document and its GPARS error, never
// an allow; the reference and the input schema agree that it is malformed.
func TestGarbageInputIsInvalid(t *testing.T) {
	c := readGarbage(t)
	m := exampleModel(t)
	ev, ref := exampleEvaluator(t, m), reference.New(m.Packs(), m.Grants())
	ctx := context.Background()
	inputSchema := schema.Get("input")
	for _, in := range []any{c.Allowed, c.AllowedStimulus} {
		res, err := ev.Decide(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision.Doc["code"] != "allowed" {
			t.Fatalf("the corpus's base call %s is %v, want allowed: the garbage would prove nothing", jsonText(in), res.Decision.Doc["code"])
		}
	}
	if len(c.Garbage) < 100 {
		t.Fatalf("only %d garbage inputs", len(c.Garbage))
	}
	for _, g := range c.Garbage {
		res, err := ev.Decide(ctx, g.Input)
		if err != nil {
			t.Errorf("%s: %v", g.Name, err)
			continue
		}
		if want := garbagetest.Invalid(g.Reasons); !reflect.DeepEqual(normalize(res.Decision.Doc), normalize(want)) {
			t.Errorf("%s: decision %s, want exactly %s\n  input %s", g.Name, jsonText(res.Decision.Doc), jsonText(want), jsonText(g.Input))
		}
		if !reflect.DeepEqual(normalize(res.GPARSError), normalize(wantInvalidGPARS)) {
			t.Errorf("%s: gpars_error %s, want exactly %s", g.Name, jsonText(res.GPARSError), jsonText(wantInvalidGPARS))
		}
		if got, want := normalize(ref.Decide(g.Input, reference.Ext{})), normalize(garbagetest.Invalid(g.Reasons)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the reference decides %s, want %s", g.Name, jsonText(got), jsonText(want))
		}
		if inputSchema.Valid(g.Input) {
			t.Errorf("%s: hcp-rego schema input accepts it", g.Name)
		}
	}
}

// TestGarbageUnderRuntimeLayer checks that no runtime layer
// (docs/decisions.md item 6) changes the decision on malformed input:
// input is checked first.
func TestGarbageUnderRuntimeLayer(t *testing.T) {
	c := readGarbage(t)
	ev := exampleEvaluator(t, exampleModel(t), hcprego.WithModule("ext.rego", "package hcp.ext\n\ndeny contains \"stop\"\n\nconfirm contains \"ask\"\n"))
	for _, g := range c.Garbage {
		res, err := ev.Decide(context.Background(), g.Input)
		if err != nil {
			t.Fatalf("%s: %v", g.Name, err)
		}
		if want := garbagetest.Invalid(g.Reasons); !reflect.DeepEqual(normalize(res.Decision.Doc), normalize(want)) {
			t.Errorf("%s: decision %s under a runtime layer, want exactly %s", g.Name, jsonText(res.Decision.Doc), jsonText(want))
		}
	}
}
