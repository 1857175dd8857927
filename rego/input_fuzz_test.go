package rego_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/schema"
)

// chainCodes are the decision codes of docs/decisions.md#the-chain.
var chainCodes = []string{"invalid_input", "unknown_command", "pack_unavailable", "capability_required", "land_denied", "runtime_denied", "confirm_required", "allowed"}

// FuzzDecisionInput decides any JSON document with the embedded evaluator
// on the example packs: it never errors, always gives a decision with a
// known code, allows only as "allowed", gives a GPARS error exactly when
// it refuses, and decides invalid_input exactly when the input schema
// (hcp-rego schema input, docs/files.md#the-decision-input) rejects the
// document, so a malformed input is never allowed. Seeds: the example
// inputs, the inputs of the case files in testdata/cases, and the garbage
// corpus.
func FuzzDecisionInput(f *testing.F) {
	for _, pattern := range []string{"../testdata/inputs/*.json", "testdata/*.json"} {
		paths, _ := filepath.Glob(pattern)
		for _, path := range paths {
			if data, err := os.ReadFile(path); err == nil {
				f.Add(data)
			}
		}
	}
	for _, in := range caseInputs(f) {
		data, _ := json.Marshal(in)
		f.Add(data)
	}
	for _, g := range readGarbage(f).Garbage {
		data, _ := json.Marshal(g.Input)
		f.Add(data)
	}
	f.Add([]byte(`{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "verb_key": "mail.list", "owner": "bob", "args": {"x": [[[[[[[[{"a": 1e400}]]]]]]]]}}`))
	f.Add([]byte(`{"principal": {"id": "bob", "roles": ["member", "member"]}, "pack_id": "mail", "stimulus": "new_item", "owner": "bob", "extra": null}`))
	f.Add([]byte(`{"principal": {"id": "\u0000"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "\u0000", "args": {"amount": "-0.0", "payee": "x"}, "access": {"allow": [{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "x"}, "limits": {"amount": {"min": -1e308, "max": "1"}}}]}}`))
	ev := exampleEvaluator(f, exampleModel(f))
	inputSchema := schema.Get("input")
	f.Fuzz(func(t *testing.T, data []byte) {
		var in any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if dec.Decode(&in) != nil || dec.More() {
			return
		}
		res, err := ev.Decide(context.Background(), in)
		if err != nil {
			t.Fatalf("Decide(%s): %v", data, err)
		}
		code, _ := res.Decision.Doc["code"].(string)
		allow, isBool := res.Decision.Doc["allow"].(bool)
		switch {
		case !isBool || !slices.Contains(chainCodes, code):
			t.Fatalf("decision without a boolean allow and a known code: %s", jsonText(res.Decision.Doc))
		case allow != (code == "allowed"):
			t.Fatalf("allow %v with code %s", allow, code)
		case (code == "invalid_input") == inputSchema.Valid(in):
			t.Fatalf("decided %s, but the input schema says valid=%v for %s", code, inputSchema.Valid(in), data)
		case (res.GPARSError != nil) != (code != "allowed" && code != "confirm_required"):
			t.Fatalf("%s decision with gpars_error %s", code, jsonText(res.GPARSError))
		}
	})
}

// caseInputs returns the input of every case in testdata/cases.
func caseInputs(t testing.TB) []any {
	t.Helper()
	paths, _ := filepath.Glob("../testdata/cases/*.cases.*")
	var inputs []any
	budget := document.NewBudget()
	for _, path := range paths {
		read := document.ReadYAML
		if filepath.Ext(path) == ".json" {
			read = document.ReadJSON
		}
		root, err := read(path, budget)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range root.Field("cases").Members() {
			inputs = append(inputs, c.Field("input").Value())
		}
	}
	if len(inputs) == 0 {
		t.Fatal("no case inputs in ../testdata/cases")
	}
	return inputs
}
