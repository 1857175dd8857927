package rego_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// listingInput is a decision input with its key taken out, as an
// operator's console sends it.
func listingInput(in any) any {
	doc, ok := in.(map[string]any)
	if !ok {
		return in
	}
	out := maps.Clone(doc)
	delete(out, "verb_key")
	delete(out, "stimulus")
	return reparse(out)
}

// compareListing lists input with both implementations and returns every
// difference, or "" when they agree field by field. With self, it also
// holds each Rego entry to the Rego decision of that key (selfCheck),
// which does not need the reference to read the runtime layer.
func (p *pair) compareListing(t *testing.T, input any, self bool) string {
	t.Helper()
	got, err := p.rego.Permissions(context.Background(), input)
	if err != nil {
		return "rego: " + err.Error()
	}
	want := p.ref.Permissions(input, p.ext)
	diffs := diffJSON("permissions", normalize(got.Doc), normalize(want))
	if self {
		diffs = append(diffs, p.selfCheck(t, input, got.Doc)...)
	}
	return strings.Join(diffs, "\n")
}

// selfCheck holds every entry of a Rego listing to the Rego decision of
// the same input with that key, args {} and no confirm, apply or allow
// rules, field by field.
func (p *pair) selfCheck(t *testing.T, input any, listing map[string]any) []string {
	t.Helper()
	var diffs []string
	for field, kind := range map[string]string{"verbs": "verb_key", "stimuli": "stimulus"} {
		entries, _ := listing[field].(map[string]any)
		for key, e := range entries {
			res, err := p.rego.Decide(context.Background(), keyedInput(input, kind, key))
			if err != nil {
				t.Fatal(err)
			}
			entry := e.(map[string]any)
			for _, f := range []string{"code", "capability", "source", "reasons"} {
				if got, want := normalize(entry[f]), normalize(res.Decision.Doc[f]); fmt.Sprint(got) != fmt.Sprint(want) {
					diffs = append(diffs, fmt.Sprintf("%s.%s.%s: listing %v, decision %v", field, key, f, got, want))
				}
			}
		}
	}
	return diffs
}

// keyedInput is what the listing's entry for key is the decision of.
func keyedInput(input any, field, key string) any {
	in := maps.Clone(input.(map[string]any))
	for _, f := range []string{"verb_key", "stimulus", "confirm", "apply"} {
		delete(in, f)
	}
	in[field] = key
	in["args"] = map[string]any{}
	if access, ok := in["access"].(map[string]any); ok {
		access = maps.Clone(access)
		delete(access, "allow")
		in["access"] = access
	}
	return reparse(in)
}

// TestPermissionsGrid lists every pack of the differential set, and a pack
// that is not there, for every principal, mode, approval, allow-rule
// shape (which the listing must not read), land facts and reachability:
// the Rego listing equals the Go reference's, and each entry the decision
// of its key.
func TestPermissionsGrid(t *testing.T) {
	m := diffModel(t)
	p := newPair(t, m, "", reference.Ext{})
	packs := append(calls(m), call{"nope", "verb_key", "x"})
	seen, grid := map[string]int{}, newSample(1)
	for _, c := range firstCallOfEachPack(packs) {
		for _, pr := range principals {
			for _, mode := range modes {
				for _, ap := range approvals[:2] {
					for _, f := range landFacts(pr) {
						for _, reachable := range []any{nil, true, false} {
							if !grid.keep() {
								continue
							}
							in := gridInput(c, pr, mode, ap, allowShapes(c.pack, c.key)[1], f)
							if reachable != nil {
								in["pack_reachable"] = reachable
							}
							in = listingInput(in).(map[string]any)
							if diff := p.compareListing(t, in, true); diff != "" {
								t.Fatalf("the listings disagree on %s:\n%s", jsonText(in), diff)
							}
							countCodes(t, p, in, seen)
						}
					}
				}
			}
		}
	}
	for _, code := range []string{"allowed", "confirm_required", "capability_required", "land_denied", "pack_unavailable", "listing unknown_pack"} {
		if seen[code] == 0 {
			t.Errorf("the grid reached no %s: %v", code, seen)
		}
	}
}

// firstCallOfEachPack keeps one call a pack: a listing covers the pack.
func firstCallOfEachPack(cs []call) []call {
	var out []call
	seen := map[string]bool{}
	for _, c := range cs {
		if !seen[c.pack] {
			seen[c.pack] = true
			out = append(out, c)
		}
	}
	return out
}

// countCodes tallies the codes a listing reached, so the grid can show
// it reached each.
func countCodes(t *testing.T, p *pair, in any, seen map[string]int) {
	got, err := p.rego.Permissions(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got.Code != "ok" {
		seen["listing "+got.Code]++
	}
	for _, e := range got.Verbs {
		seen[e.Code]++
	}
	for _, e := range got.Stimuli {
		seen[e.Code]++
	}
}

// TestPermissionsRandom compares the listings on random inputs, many of
// them malformed, and under every runtime layer; every fourth listing's
// entries are held to their keys' decisions too.
func TestPermissionsRandom(t *testing.T) {
	m := diffModel(t)
	layers := append([]struct {
		name   string
		module string
		ext    reference.Ext
	}{{"no layer", "", reference.Ext{}}}, extLayers...)
	for _, layer := range layers {
		t.Run(layer.name, func(t *testing.T) {
			p := newPair(t, m, layer.module, layer.ext)
			gen := newRandomInputs(m, 29)
			invalid := 0
			for i := range scaled(700) {
				in := listingInput(gen.next())
				if diff := p.compareListing(t, in, i%4 == 0); diff != "" {
					t.Fatalf("the listings disagree on %s:\n%s", jsonText(in), diff)
				}
				if got, _ := p.rego.Permissions(context.Background(), in); got.Code == "invalid_input" {
					invalid++
				}
			}
			if invalid == 0 {
				t.Error("no random input was malformed: the test would not see a garbage listing")
			}
		})
	}
}

// keyedLayer is a runtime layer whose rules read the call's key, as a
// runtime's may: each entry must see its own key.
const keyedLayer = `package hcp.ext

deny contains "no writes of personal data here" if startswith(input.verb_key, "write.personal")

confirm contains sprintf("ask before %s", [input.stimulus]) if input.stimulus
`

// TestPermissionsRuntimeSeesTheKey lists under a runtime layer that reads
// the key: every entry equals the decision of its key, and the layer's
// rules fire on some entries and not others.
func TestPermissionsRuntimeSeesTheKey(t *testing.T) {
	m := diffModel(t)
	p := newPair(t, m, keyedLayer, reference.Ext{})
	fired := map[string]int{}
	for _, pr := range principals {
		for _, f := range landFacts(pr)[:1] {
			in := listingInput(gridInput(call{"alpha", "verb_key", "x"}, pr, "run", nil, nil, f))
			got, err := p.rego.Permissions(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if diffs := p.selfCheck(t, in, got.Doc); len(diffs) > 0 {
				t.Fatalf("the listing and the decisions disagree on %s:\n%s", jsonText(in), strings.Join(diffs, "\n"))
			}
			for _, e := range got.Verbs {
				fired[e.Code]++
			}
			for _, e := range got.Stimuli {
				fired[e.Code]++
			}
		}
	}
	if fired["runtime_denied"] == 0 || fired["confirm_required"] == 0 || fired["allowed"] == 0 {
		t.Errorf("the keyed layer did not both fire and pass: %v", fired)
	}
}

// failingLayer errors whenever a decision of any key reads it: a listing
// that evaluates no key never meets the error.
const failingLayer = `package hcp.ext

deny := "a" if input.verb_key
deny := "b" if input.verb_key
deny := "a" if input.stimulus
deny := "b" if input.stimulus
`

// TestPermissionsMalformedEvaluatesNoKey lists malformed inputs and an
// unknown pack under a runtime layer that fails any decision of a key:
// each is answered without evaluating one (and a well-formed listing does
// meet the error, so the layer does fail).
func TestPermissionsMalformedEvaluatesNoKey(t *testing.T) {
	p := newPair(t, diffModel(t), failingLayer, reference.Ext{})
	ok := listingInput(gridInput(call{"alpha", "verb_key", "x"}, principals[4], nil, nil, nil, landFacts(principals[4])[0]))
	if _, err := p.rego.Permissions(context.Background(), ok); err == nil {
		t.Fatal("the failing layer does not fail a listing: the test proves nothing")
	}
	for _, in := range []any{
		nil, "alpha", []any{ok},
		map[string]any{"pack_id": "alpha"},
		map[string]any{"principal": map[string]any{"id": ""}, "pack_id": "alpha"},
		map[string]any{"principal": map[string]any{"id": "alice"}, "pack_id": "alpha", "args": "x"},
		map[string]any{"principal": map[string]any{"id": "alice"}, "pack_id": "alpha", "access": map[string]any{"mode": "auto"}},
		map[string]any{"principal": map[string]any{"id": "alice", "roles": []any{1}}, "pack_id": "alpha"},
		map[string]any{"principal": map[string]any{"id": "alice"}, "pack_id": "nope"},
	} {
		got, err := p.rego.Permissions(context.Background(), reparse(in))
		if err != nil {
			t.Errorf("%s: a key was evaluated: %v", jsonText(in), err)
			continue
		}
		if got.Code == "ok" || len(got.Verbs)+len(got.Stimuli) > 0 {
			t.Errorf("%s: listed %v", jsonText(in), got.Doc)
		}
	}
}
