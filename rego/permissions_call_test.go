package rego_test

import (
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// callLayer is a runtime layer whose rules read what a call carries beyond
// its key: its args, confirm, apply and allow rules, and a member the
// decision input does not name. A listing's entry is the decision of a call
// with args {} and none of the others, and every other member as given
// (docs/permissions.md): these rules must see them so, whatever the
// listing's input holds.
const callLayer = `package hcp.ext

deny contains "no change ticket" if {
	startswith(input.verb_key, "write.personal")
	not input.args.ticket
}

deny contains "approved calls are not listed" if input.confirm

deny contains "applied calls are not listed" if input.apply

deny contains "agent blocked" if input.agent == "blocked-bot"

confirm contains "allow rules given" if count(input.access.allow) > 0

confirm contains "a read of personal data" if startswith(input.verb_key, "read.personal")
`

// callRules are callLayer's rules as the Go reference reads them.
func callRules(in map[string]any) (deny, confirm any) {
	var d, c []any
	args, _ := in["args"].(map[string]any)
	if key, _ := in["verb_key"].(string); strings.HasPrefix(key, "write.personal") && (args["ticket"] == nil || args["ticket"] == false) {
		d = append(d, "no change ticket")
	}
	if in["confirm"] == true {
		d = append(d, "approved calls are not listed")
	}
	if in["apply"] == true {
		d = append(d, "applied calls are not listed")
	}
	if in["agent"] == "blocked-bot" {
		d = append(d, "agent blocked")
	}
	access, _ := in["access"].(map[string]any)
	if allow, _ := access["allow"].([]any); len(allow) > 0 {
		c = append(c, "allow rules given")
	}
	if key, _ := in["verb_key"].(string); strings.HasPrefix(key, "read.personal") {
		c = append(c, "a read of personal data")
	}
	return d, c
}

// TestPermissionsSeeWhatACallSees lists inputs that carry args, confirm,
// apply, allow rules and a member the decision input does not name, under
// callLayer: each listing equals the reference's, and each entry the
// decision of its key, which the layer sees with args {} and none of the
// others. The layer's rules fire on some entries and pass others.
func TestPermissionsSeeWhatACallSees(t *testing.T) {
	m := diffModel(t)
	p := newPair(t, m, callLayer, reference.Ext{Rules: callRules})
	codes := map[string]int{}
	for _, pr := range principals {
		for _, mode := range modes {
			for _, ap := range approvals[:3] {
				for i, f := range landFacts(pr)[:2] {
					c := call{"alpha", "verb_key", "x"}
					in := gridInput(c, pr, mode, ap, allowShapes(c.pack, "write.personal.ask")[1], f)
					in["args"] = map[string]any{"ticket": "T-1"}
					in["agent"] = []string{"deploy-bot", "blocked-bot"}[i]
					in = listingInput(in).(map[string]any)
					if diff := p.compareListing(t, in, true); diff != "" {
						t.Fatalf("the listing of %s is not what its calls get:\n%s", jsonText(in), diff)
					}
					got, err := p.rego.Permissions(t.Context(), in)
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range got.Verbs {
						codes[e.Code]++
					}
				}
			}
		}
	}
	for _, code := range []string{"runtime_denied", "confirm_required", "allowed"} {
		if codes[code] == 0 {
			t.Errorf("no entry is %s: %v", code, codes)
		}
	}
}
