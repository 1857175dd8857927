package rego_test

import (
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// extRules are runtime rules (package hcp.ext, docs/decisions.md item 6),
// most of them conditional on the input. Layer k holds the first k rules,
// so each layer is the one before with one rule added.
var extRules = []struct {
	rule  string
	inert bool // defines names that the decision library never reads
}{
	{rule: `deny contains "late" if input.args.note == "late"`},
	{rule: `confirm contains "large amount" if to_number(input.args.amount) > 2`},
	{rule: `allow := true

decision := {"allow": true, "code": "allowed"}

gpars_error := null`, inert: true},
	{rule: `deny contains role if {
	some role in input.principal.roles
	role == "ops"
}`},
	{rule: `confirm contains "no approval" if not input.confirm`},
	{rule: `deny contains "acme" if input.principal.tenant == "acme"`},
}

// extInputs are the grant inputs, every other one, as they are, with a
// late note, and in mode run.
func extInputs(t *testing.T) []map[string]any {
	var out []map[string]any
	for i, in := range grantInputs(diffModel(t)) {
		if i%2 != 0 {
			continue
		}
		late := reparse(in).(map[string]any)
		late["args"].(map[string]any)["note"] = "late"
		run := reparse(in).(map[string]any)
		run["access"] = map[string]any{"mode": "run"}
		out = append(out, in, late, run)
	}
	return out
}

// TestAddingARuntimeRuleNeverWidens decides the same inputs under layers
// that grow one rule at a time. A decision under a layer is the one under
// the layer before, or runtime_denied, or confirm_required where it was
// allowed or asked (with more reasons): a rule never turns a deny or a confirm_required into an allow.
// Every rule but the inert one narrows some decision, so the test would
// see a widening; the inert one (allow, decision and gpars_error defined
// in hcp.ext) changes none.
func TestAddingARuntimeRuleNeverWidens(t *testing.T) {
	m := diffModel(t)
	inputs := extInputs(t)
	prev := decideAll(t, newPair(t, m, "", reference.Ext{}).rego, inputs)
	allowed := 0
	for _, d := range prev {
		if d["allow"] == true {
			allowed++
		}
	}
	if allowed < len(inputs)/10 {
		t.Fatalf("only %d of %d inputs allowed without a layer: too few for a rule to narrow", allowed, len(inputs))
	}
	var rules []string
	for _, r := range extRules {
		rules = append(rules, r.rule)
		module := "package hcp.ext\n\n" + strings.Join(rules, "\n\n") + "\n"
		now := decideAll(t, newPair(t, m, module, reference.Ext{}).rego, inputs)
		changed := 0
		for i, in := range inputs {
			before, after := prev[i], now[i]
			if jsonText(before) == jsonText(after) {
				continue
			}
			changed++
			narrowed := after["code"] == "runtime_denied" ||
				after["code"] == "confirm_required" && (before["code"] == "allowed" || before["code"] == "confirm_required")
			if r.inert || !narrowed || after["allow"] != false {
				t.Fatalf("adding %q turned %v into %v for %s", r.rule, before["code"], after["code"], jsonText(in))
			}
		}
		if !r.inert && changed == 0 {
			t.Errorf("adding %q changed no decision: the test would not see it widen", r.rule)
		}
		prev = now
	}
}
