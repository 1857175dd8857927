package rego_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	oparego "github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// eventCounter counts the evaluation steps of a query: a count that,
// unlike time, is the same on every run.
type eventCounter struct{ n int }

func (c *eventCounter) Enabled() bool               { return true }
func (c *eventCounter) TraceEvent(topdown.Event)    { c.n++ }
func (c *eventCounter) Config() topdown.TraceConfig { return topdown.TraceConfig{} }

var _ topdown.QueryTracer = (*eventCounter)(nil)

// listingSteps is how many evaluation steps listing input takes.
func listingSteps(t *testing.T, pq oparego.PreparedEvalQuery, input any) int {
	t.Helper()
	c := &eventCounter{}
	if _, err := pq.Eval(context.Background(), oparego.EvalInput(input), oparego.EvalQueryTracer(c)); err != nil {
		t.Fatal(err)
	}
	return c.n
}

// prepare prepares query over the bundle b.
func prepare(t *testing.T, b *bundle.Bundle, query string) oparego.PreparedEvalQuery {
	t.Helper()
	opts := []func(*oparego.Rego){oparego.Query(query), oparego.Store(inmem.NewFromObject(b.Data)), oparego.SetRegoVersion(ast.RegoV1)}
	for _, mod := range b.Modules {
		opts = append(opts, oparego.ParsedModule(mod.Parsed))
	}
	pq, err := oparego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return pq
}

// TestPermissionsWorkFollowsThePack holds a listing's work to the pack's
// size, whatever the input holds: roles the grants do not name cost a
// listing what they cost one decision, once a listing, never once a
// command; and a malformed
// input, however long, costs no more than its check and its reasons cost
// one decision.
func TestPermissionsWorkFollowsThePack(t *testing.T) {
	m := diffModel(t)
	b, err := compile.Compile(m, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := hcprego.ParseModules(b); err != nil {
		t.Fatal(err)
	}
	pq := prepare(t, b, hcprego.PermissionsQuery)
	keys := len(m.Packs()[0].Verbs) + len(m.Packs()[0].Stimuli)
	withRoles := func(n int, extra map[string]any) any {
		roles := []any{"member"}
		for i := range n {
			roles = append(roles, fmt.Sprintf("stranger-%d", i))
		}
		in := map[string]any{"principal": map[string]any{"id": "m1", "roles": roles, "projects": []any{"p1"}}, "pack_id": m.Packs()[0].ID, "owner": "m1"}
		for k, v := range extra {
			in[k] = v
		}
		return reparse(in)
	}
	decision := prepare(t, b, hcprego.DecisionQuery)
	// A decision of a command the pack has, so that it reads the roles
	// for grants as a listing does.
	keyed := func(in any) any { return keyedInput(in, "verb_key", "read.brain.open") }
	few, many := listingSteps(t, pq, withRoles(1, nil)), listingSteps(t, pq, withRoles(2001, nil))
	once := listingSteps(t, decision, keyed(withRoles(2001, nil))) - listingSteps(t, decision, keyed(withRoles(1, nil)))
	t.Logf("%d commands and triggers: %d steps with 1 role, %d with 2001; one decision's 2000 more roles take %d more", keys, few, many, once)
	if many-few > 3*once {
		t.Errorf("2000 roles the grants do not name cost a listing %d more steps, one decision %d: the roles are read once a command", many-few, once)
	}
	malformed := withRoles(2001, map[string]any{"args": "not an object"})
	bad, check := listingSteps(t, pq, malformed), listingSteps(t, decision, keyed(malformed))
	if bad > check+keys {
		t.Errorf("a malformed listing took %d steps, the decision of the same input (its check and its reasons) %d: keys were evaluated", bad, check)
	}
}
