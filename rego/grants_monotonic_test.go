package rego_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/reference"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// Removing a grant never widens a decision, with one exception
// (docs/decisions.md item 4, docs/reliability.md "Fewer grants, more
// access"): default grants hold only for a principal to whom no
// principal:/role: grant applies, so removing the
// last such grant that applied to a principal hands it the default grants,
// which may give what it did not hold before.

// withoutGrant returns m without its grant at index drop, the others
// renumbered in order, as if the grant had never been written: it blanks
// the grant's line in its file (the differential grants stand one a line,
// so every other grant keeps its line and its source), checks the files
// again as a run does, and puts the file back.
func withoutGrant(t *testing.T, m *compile.Model, drop int) *compile.Model {
	t.Helper()
	g := m.Grants()[drop]
	text, err := os.ReadFile(g.File)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(text), "\n")
	line := strings.TrimSpace(lines[g.Line-1])
	if strings.Count(line, `"subject"`) != 1 {
		t.Fatalf("grant %s does not stand alone on its line", g.Source())
	}
	lines[g.Line-1] = ""
	if !strings.HasSuffix(line, ",") {
		// The last grant of its file: the one before it loses its comma.
		for i := g.Line - 2; i >= 0; i-- {
			if strings.Contains(lines[i], `"subject"`) {
				lines[i] = strings.TrimSuffix(strings.TrimRight(lines[i], " "), ",")
				break
			}
		}
	}
	if err := os.WriteFile(g.File, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, p := range m.Packs() {
		dirs = append(dirs, p.Dir)
	}
	reduced, err := compile.Checked(dirs, m.GrantFiles())
	if err := os.WriteFile(g.File, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatalf("without grant %s: %v", g.Source(), err)
	}
	if got := len(reduced.Grants()); got != len(m.Grants())-1 {
		t.Fatalf("without grant %s: %d grants, want %d", g.Source(), got, len(m.Grants())-1)
	}
	return reduced
}

// named reports whether some principal:/role: grant applies to principal
// (docs/decisions.md item 4), so that default grants do not: written from
// that text, independently of both evaluators.
func named(principal map[string]any, grants []*compile.Grant) bool {
	id, _ := principal["id"].(string)
	tenant, _ := principal["tenant"].(string)
	subjects := []string{"principal:" + id}
	roles, _ := principal["roles"].([]any)
	for _, r := range roles {
		subjects = append(subjects, fmt.Sprint("role:", r))
	}
	for _, g := range grants {
		if g.Subject != "default" && slices.Contains(subjects, g.Subject) && (g.Tenant == "" || g.Tenant == tenant) {
			return true
		}
	}
	return false
}

// pastCapability reports whether a decision passed the capability step
// of the chain (docs/decisions.md#the-chain).
func pastCapability(code any) bool {
	return slices.Contains([]any{"land_denied", "runtime_denied", "confirm_required", "allowed"}, code)
}

// grantInputs are well-formed, reachable calls of every row (and unknown
// ones) by every principal shape, with the land facts right, with and
// without confirm: each can be decided by any capability the grants give.
func grantInputs(m *compile.Model) []map[string]any {
	var out []map[string]any
	for _, c := range calls(m) {
		for _, pr := range principals {
			for _, ap := range approvals[:2] {
				out = append(out, reparse(gridInput(c, pr, nil, ap, nil, landFacts(pr)[0])).(map[string]any))
			}
		}
	}
	return out
}

func decideAll(t *testing.T, ev *hcprego.Evaluator, inputs []map[string]any) []map[string]any {
	t.Helper()
	out := make([]map[string]any, len(inputs))
	for i, in := range inputs {
		res, err := ev.Decide(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = res.Decision.Doc
	}
	return out
}

// TestGrantRemovalWidensOnlyThroughDefaults removes each grant of the
// differential pack set in turn and decides every grant input with and
// without it. A decision may only keep its code or fall to
// capability_required, unless the principal was named before and is not
// any more: then, and only then, a default grant may give it more, and
// the test sees that happen.
func TestGrantRemovalWidensOnlyThroughDefaults(t *testing.T) {
	m := diffModel(t)
	inputs := grantInputs(m)
	full := decideAll(t, newPair(t, m, "", reference.Ext{}).rego, inputs)
	grants := m.Grants()
	sources := map[string]*compile.Grant{}
	for _, g := range grants {
		sources[g.Source()] = g
	}
	widened := 0
	for drop, g := range grants {
		reduced := withoutGrant(t, m, drop)
		kept := reduced.Grants()
		after := decideAll(t, newPair(t, reduced, "", reference.Ext{}).rego, inputs)
		for i, in := range inputs {
			before, now := full[i], after[i]
			if now["code"] == before["code"] || now["code"] == "capability_required" {
				continue
			}
			p := in["principal"].(map[string]any)
			unnamed := named(p, grants) && !named(p, kept)
			if !unnamed || before["code"] != "capability_required" || !pastCapability(now["code"]) {
				t.Fatalf("removing grant %s (%s) turned %v into %v for %s", g.Source(), g.Subject, before["code"], now["code"], jsonText(in))
			}
			src, _ := now["source"].(map[string]any)
			if giver := sources[fmt.Sprint(src["grant"])]; giver == nil || giver.Subject != "default" {
				t.Fatalf("removing grant %s widened %s to %v through %v, not a default grant", g.Source(), jsonText(in), now["code"], src["grant"])
			}
			widened++
		}
	}
	if widened == 0 {
		t.Fatal("no removal widened a decision: the exception is not exercised, so the test could not tell it from a bug")
	}
	t.Logf("%d grants × %d inputs; %d decisions widened, each through a default grant once the principal was no longer named", len(grants), len(inputs), widened)
}

// TestLastNamedGrantRemovedDefaultsTakeOver is the exception by example:
// carol's only grant is principal:carol on beta-pack, so the default read
// grant on alpha does not hold for her; without that grant she is named
// by none, and the default grant lets her read alpha.
func TestLastNamedGrantRemovedDefaultsTakeOver(t *testing.T) {
	m := diffModel(t)
	grants := m.Grants()
	drop := slices.IndexFunc(grants, func(g *compile.Grant) bool { return g.Subject == "principal:carol" })
	if drop < 0 || slices.ContainsFunc(grants[drop+1:], func(g *compile.Grant) bool { return g.Subject == "principal:carol" }) {
		t.Fatal("the differential grants must name principal:carol exactly once")
	}
	in := reparse(map[string]any{"principal": map[string]any{"id": "carol"}, "pack_id": "alpha", "verb_key": "read.personal.open", "owner": "carol"})
	decide := func(m *compile.Model) map[string]any {
		res, err := newPair(t, m, "", reference.Ext{}).rego.Decide(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return res.Decision.Doc
	}
	if got := decide(m); got["code"] != "capability_required" {
		t.Fatalf("with her grant on beta-pack, carol's read of alpha is %v, want capability_required", got["code"])
	}
	got := decide(withoutGrant(t, m, drop))
	src, _ := got["source"].(map[string]any)
	if got["code"] != "allowed" || src["grant"] != defaultReadAlpha(t, m).Source() {
		t.Fatalf("without it, carol's read of alpha is %s, want allowed by the default grant", jsonText(got))
	}
}

// defaultReadAlpha is the default grant of verb.exec.read on alpha.
func defaultReadAlpha(t *testing.T, m *compile.Model) *compile.Grant {
	t.Helper()
	for _, g := range m.Grants() {
		if g.Subject == "default" && g.PackID == "alpha" && slices.Contains(g.Capabilities, compile.CapRead) {
			return g
		}
	}
	t.Fatal("no default read grant on alpha")
	return nil
}
