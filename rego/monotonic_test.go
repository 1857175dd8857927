package rego_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// narrowings take something away from a well-formed input (or ask for
// less): none may turn a deny or a confirm_required into an allow.
var narrowings = map[string]func(in map[string]any){
	"remove confirm":      func(in map[string]any) { delete(in, "confirm") },
	"remove apply":        func(in map[string]any) { delete(in, "apply") },
	"remove access.allow": func(in map[string]any) { deleteIn(in, "access", "allow") },
	"remove the first allow rule": func(in map[string]any) {
		if a, ok := in["access"].(map[string]any); ok {
			if rules, ok := a["allow"].([]any); ok && len(rules) > 0 {
				a["allow"] = rules[1:]
			}
		}
	},
	"remove owner":              func(in map[string]any) { delete(in, "owner") },
	"remove project_id":         func(in map[string]any) { delete(in, "project_id") },
	"remove principal.projects": func(in map[string]any) { deleteIn(in, "principal", "projects") },
	"remove workspace":          func(in map[string]any) { delete(in, "workspace") },
	"remove workspace.root":     func(in map[string]any) { deleteIn(in, "workspace", "root") },
	"pack_reachable false":      func(in map[string]any) { in["pack_reachable"] = false },
	"mode run to ask": func(in map[string]any) {
		if a, ok := in["access"].(map[string]any); ok && a["mode"] == "run" {
			a["mode"] = "ask"
		}
	},
}

func deleteIn(in map[string]any, object, field string) {
	if o, ok := in[object].(map[string]any); ok {
		delete(o, field)
	}
}

// TestNarrowingNeverAllows takes grid inputs that Rego denies or asks to
// confirm (every eighth one, across every row, grant shape, mode, approval,
// allow-rule shape and land facts) and checks that no narrowing makes one
// allowed.
func TestNarrowingNeverAllows(t *testing.T) {
	m := diffModel(t)
	p := newPair(t, m, "", reference.Ext{})
	ctx := context.Background()
	checked, grid := 0, newSample(8)
	decide := func(in map[string]any) map[string]any {
		res, err := p.rego.Decide(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return res.Decision.Doc
	}
	for _, c := range calls(m) {
		for _, pr := range principals[:6] {
			for _, mode := range modes {
				for _, ap := range approvals[:3] {
					for _, allow := range allowShapes(c.pack, c.key) {
						for _, f := range landFacts(pr)[:3] {
							if !grid.keep() {
								continue
							}
							in := reparse(gridInput(c, pr, mode, ap, allow, f)).(map[string]any)
							before := decide(in)
							if before["allow"] == true {
								continue
							}
							for name, narrow := range narrowings {
								mutated := reparse(in).(map[string]any)
								narrow(mutated)
								checked++
								if after := decide(mutated); after["allow"] != false {
									data, _ := json.Marshal(in)
									t.Fatalf("%s turned %s into %v for input %s", name, before["code"], after["code"], data)
								}
							}
						}
					}
				}
			}
		}
	}
	if checked < scaled(40000) {
		t.Fatalf("only %d narrowed inputs checked; the grid lost its denials", checked)
	}
	t.Logf("%d narrowed inputs stay denied", checked)
}

// FuzzDecision holds the two implementations to the same decision for any
// JSON input, its numbers kept as written. Seeds: random inputs, and
// allow rules over the number spellings of TestNumberSpellingsDifferential
// in limits and pins.
func FuzzDecision(f *testing.F) {
	m := diffModel(f)
	gen := newRandomInputs(m, 3)
	for range 40 {
		data, _ := json.Marshal(gen.next())
		f.Add(data)
	}
	f.Add([]byte(`null`))
	f.Add([]byte(`{"principal": {"id": "alice"}, "pack_id": "alpha", "verb_key": "write.local.always", "workspace": {"root": "/"}}`))
	for i, x := range spellings {
		b := spellings[(i*7+3)%len(spellings)]
		for _, rule := range []string{`"limits": {"amount": {"max": ` + b + `}}`, `"limits": {"amount": {"min": "` + x + `"}}`, `"args": {"amount": [` + b + `]}`} {
			f.Add([]byte(ruleCall(x, rule)))
		}
	}
	p := newPair(f, m, "", reference.Ext{})
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var in any
		if dec.Decode(&in) != nil || dec.More() || !opaNumbers(in) {
			return
		}
		if _, diff := p.compare(in); diff != "" {
			t.Errorf("Rego and the Go reference disagree on %s:\n%s", data, diff)
		}
	})
}

// opaNumbers reports whether OPA takes every number in v: it refuses one
// whose exponent is beyond its range, as eval and its REST API do.
func opaNumbers(v any) bool {
	switch v := v.(type) {
	case json.Number:
		_, err := ast.NumberChecked(v.String())
		return err == nil
	case []any:
		return !slices.ContainsFunc(v, func(e any) bool { return !opaNumbers(e) })
	case map[string]any:
		for _, e := range v {
			if !opaNumbers(e) {
				return false
			}
		}
	}
	return true
}
