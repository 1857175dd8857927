package rego_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/explain"
	"github.com/hcp-rego/hcp-rego/internal/reference"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// TestExplainAgreesWithDecision walks eval --explain over the differential
// grid (every eleventh input, all of its dimensions) and holds what
// explain re-derives from the model and the input to the decision: the
// step that stops is the decision's; a granted capability names a grant
// of the model; a land, a gate and each allow rule are described as
// passing exactly when the decision went past them. explain re-reads
// grants, land, the gate and allow rules itself, so this is what keeps it
// from contradicting the library.
func TestExplainAgreesWithDecision(t *testing.T) {
	m := diffModel(t)
	p := newPair(t, m, "", reference.Ext{})
	seen := map[string]int{}
	grid := newSample(11)
	for _, c := range calls(m) {
		for _, pr := range principals {
			for _, mode := range modes {
				for _, ap := range approvals[:3] {
					for _, allow := range allowShapes(c.pack, c.key) {
						for _, f := range landFacts(pr) {
							if !grid.keep() {
								continue
							}
							in := reparse(gridInput(c, pr, mode, ap, allow, f))
							res, err := p.rego.Decide(context.Background(), in)
							if err != nil {
								t.Fatal(err)
							}
							steps := explain.Explain(m, in, res.Decision, res.RuntimeConfirm, nil)
							for _, why := range disagreements(steps, res.Decision) {
								t.Errorf("explain contradicts the decision %v on %s: %s", res.Decision.Doc["code"], jsonText(in), why)
							}
							for _, s := range steps {
								seen[s.Name+" "+string(s.Status)]++
							}
						}
					}
				}
			}
		}
	}
	for _, want := range []string{"capability ok", "capability STOP", "land ok", "land STOP", "confirm ok", "confirm STOP"} {
		if seen[want] == 0 {
			t.Errorf("the grid reached no %q step: %v", want, seen)
		}
	}
}

// disagreements lists where the explained steps contradict decision d.
func disagreements(steps []explain.Step, d hcprego.Decision) []string {
	var out []string
	stop := map[string]string{"input": "invalid_input", "row": "unknown_command", "reachable": "pack_unavailable", "tenant": "tenant_unavailable",
		"capability": "capability_required", "land": "land_denied", "runtime": "runtime_denied", "confirm": "confirm_required"}
	for _, s := range steps {
		text := strings.Join(s.Detail, " | ")
		failed := s.Status == explain.Failed
		if failed != (stop[s.Name] == d.Code) {
			out = append(out, fmt.Sprintf("step %s is %s", s.Name, s.Status))
		}
		if s.Status == explain.NotReached {
			continue
		}
		switch s.Name {
		case "capability":
			if strings.Contains(text, "grant not found") || strings.Contains(text, "this is a bug") {
				out = append(out, "capability: "+text)
			}
		case "land":
			if fails := strings.Contains(text, "missing") || strings.Contains(text, " is not "); fails != failed {
				out = append(out, "land: "+text)
			}
		case "confirm":
			passes := strings.Contains(text, "passes it") || strings.Contains(text, "passes confirm") ||
				strings.Contains(text, " matches") || strings.HasPrefix(text, "no gate")
			if passes == failed {
				out = append(out, "confirm: "+text)
			}
		}
	}
	return out
}
