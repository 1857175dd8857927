package reference

import (
	"maps"

	"github.com/hcp-rego/hcp-rego/compile"
)

// Permissions returns the listing of docs/permissions.md#the-query for
// input: for the input's pack, every command and trigger with the decision
// that Decide gives the same input with that key, args {}, and no confirm,
// apply or allow rules. It is read from the text alone: each entry is a
// decision made whole, so the listing cannot follow another chain than
// Decide's.
func (e *Evaluator) Permissions(input any, ext Ext) map[string]any {
	doc, ok := input.(map[string]any)
	if !ok || !e.wellFormedAsideKey(doc) || !listingBounded(doc) {
		out := listing(nil, "invalid_input")
		out["reasons"] = toAny(firstSorted(append(shapeProblems(input), sizeProblems(input)...)))
		return out
	}
	pack := e.packs[doc["pack_id"].(string)]
	if pack == nil {
		return listing(doc, "unknown_pack")
	}
	out := listing(doc, "ok")
	for _, kind := range []compile.Kind{compile.Verb, compile.Stimulus} {
		entries := out[listField(kind)].(map[string]any)
		for key := range pack.Rows(kind) {
			entries[key] = entry(e.Decide(keyed(doc, kind, key), ext))
		}
	}
	return out
}

// wellFormedAsideKey reports whether doc, whatever key it names, is a
// well-formed decision input once it names one.
func (e *Evaluator) wellFormedAsideKey(doc map[string]any) bool {
	probe := maps.Clone(doc)
	delete(probe, "stimulus")
	probe["verb_key"] = "k"
	_, ok := readCall(probe, e.input)
	return ok
}

// keyed is the input a call of key would carry: doc with that key, args
// {}, and no confirm, apply or allow rules; every other member as given,
// for a runtime's rules to read.
func keyed(doc map[string]any, kind compile.Kind, key string) map[string]any {
	in := maps.Clone(doc)
	for _, field := range []string{"verb_key", "stimulus", "confirm", "apply"} {
		delete(in, field)
	}
	in[kind.Field()] = key
	in["args"] = map[string]any{}
	if access, ok := doc["access"].(map[string]any); ok {
		access = maps.Clone(access)
		delete(access, "allow")
		in["access"] = access
	}
	return in
}

// listing starts a listing document with its code; pack_id is there for
// an input whose pack it names.
func listing(doc map[string]any, code string) map[string]any {
	out := map[string]any{"code": code, "verbs": map[string]any{}, "stimuli": map[string]any{}}
	if doc != nil {
		out["pack_id"] = doc["pack_id"]
	}
	return out
}

// listField is where a listing holds entries of a kind.
func listField(k compile.Kind) string {
	if k == compile.Stimulus {
		return "stimuli"
	}
	return "verbs"
}

// entry is a listing's entry for a decision: its code, capability, source
// and reasons, and the disposition a harness would show (as matrix does).
func entry(d map[string]any) map[string]any {
	code := d["code"].(string)
	disposition := "deny"
	switch code {
	case allowed:
		disposition = "allow"
	case confirmRequired:
		disposition = "ask"
	}
	return map[string]any{
		"disposition": disposition,
		"code":        code,
		"capability":  d["capability"],
		"source":      d["source"],
		"reasons":     d["reasons"],
	}
}
