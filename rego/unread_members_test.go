package rego_test

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	oparego "github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// unreadMembers is how many members the decision input does not name the
// inputs below carry: top level, or nested under one member.
const unreadMembers = 20_000

// work is what one evaluation of a query costs: its evaluation steps, its
// allocations and the bytes they hold. Each is about the same on every run,
// unlike time.
type work struct{ steps, allocs, bytes float64 }

// measure evaluates pq on input and counts its work.
func measure(t *testing.T, pq oparego.PreparedEvalQuery, input any) work {
	t.Helper()
	eval := func() {
		if _, err := pq.Eval(context.Background(), oparego.EvalInput(input)); err != nil {
			t.Fatal(err)
		}
	}
	eval() // warm what is prepared once
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	eval()
	runtime.ReadMemStats(&after)
	return work{
		steps:  float64(listingSteps(t, pq, input)),
		allocs: testing.AllocsPerRun(3, eval),
		bytes:  float64(after.TotalAlloc - before.TotalAlloc),
	}
}

// prepareWithLayer prepares query over b and one runtime module.
func prepareWithLayer(t *testing.T, b *bundle.Bundle, query, layer string) oparego.PreparedEvalQuery {
	t.Helper()
	opts := []func(*oparego.Rego){oparego.Query(query), oparego.Store(inmem.NewFromObject(b.Data)), oparego.SetRegoVersion(ast.RegoV1),
		oparego.Module("ext.rego", layer)}
	for _, mod := range b.Modules {
		opts = append(opts, oparego.ParsedModule(mod.Parsed))
	}
	pq, err := oparego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return pq
}

// withUnread returns in with unreadMembers more members: at the top level,
// or nested under the one member "context".
func withUnread(in map[string]any, nested bool) map[string]any {
	out := maps.Clone(in)
	extra := out
	if nested {
		extra = map[string]any{}
		out["context"] = extra
	}
	for i := range unreadMembers {
		extra[fmt.Sprintf("x%05d", i)] = i
	}
	return out
}

// unreadBundle compiles the differential set, whose pack alpha has some
// thirty commands and triggers.
func unreadBundle(t *testing.T) (*bundle.Bundle, map[string]any) {
	t.Helper()
	m := diffModel(t)
	b, err := compile.Compile(m, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := hcprego.ParseModules(b); err != nil {
		t.Fatal(err)
	}
	in := gridInput(call{"alpha", "verb_key", "read.brain.open"}, principals[4], "run", nil, nil, landFacts(principals[4])[0])
	return b, in
}

// TestUnreadMembersCostADecisionNothing decides a call carrying many
// members the chain does not read, at the top level and nested under one
// member: the decision costs the same steps either way, and allocations
// within twice (docs/decisions.md item 1), for a well-formed call and for
// a malformed one.
func TestUnreadMembersCostADecisionNothing(t *testing.T) {
	b, in := unreadBundle(t)
	pq := prepare(t, b, hcprego.DecisionQuery)
	bad := maps.Clone(in)
	bad["confirm"] = "yes"
	for name, call := range map[string]map[string]any{"well formed": in, "malformed": bad} {
		top, nested := measure(t, pq, withUnread(call, false)), measure(t, pq, withUnread(call, true))
		t.Logf("%s: %d members at the top level %+v, nested %+v", name, unreadMembers, top, nested)
		if top.steps > nested.steps+5 || top.allocs > 2*nested.allocs || top.bytes > 2*nested.bytes {
			t.Errorf("%s: %d unread top-level members cost a decision %+v, nested under one member %+v", name, unreadMembers, top, nested)
		}
	}
}

// TestUnreadMembersCostAListingOneReading lists a pack of some thirty
// commands and triggers, under a runtime layer, for an input carrying many
// members the chain does not read: the listing refuses it, naming the
// bound, at no more cost than one decision's reading of it
// (docs/permissions.md#the-query), never a reading a key; and one at the
// bounds (64 members, 65,536 characters) costs less than asking for each
// key in turn.
func TestUnreadMembersCostAListingOneReading(t *testing.T) {
	b, in := unreadBundle(t)
	const layer = "package hcp.ext\n\nconfirm contains \"reads\" if startswith(input.verb_key, \"read\")\n"
	listing := prepareWithLayer(t, b, hcprego.PermissionsQuery, layer)
	decision := prepareWithLayer(t, b, hcprego.DecisionQuery, layer)
	base := listingInput(in).(map[string]any)
	more := func(pq oparego.PreparedEvalQuery, in map[string]any) work {
		with, without := measure(t, pq, withUnread(in, false)), measure(t, pq, in)
		return work{with.steps - without.steps, with.allocs - without.allocs, with.bytes - without.bytes}
	}
	listed, decided := more(listing, base), more(decision, in)
	t.Logf("%d unread members cost a listing %+v more, a decision %+v", unreadMembers, listed, decided)
	if decided.allocs < unreadMembers {
		t.Fatalf("reading %d members took %.0f allocations: the input is not read as the test supposes", unreadMembers, decided.allocs)
	}
	if listed.allocs > 2*decided.allocs || listed.bytes > 2*decided.bytes || listed.steps > 100 {
		t.Errorf("%d unread members cost a listing %+v more, one decision %+v: the listing reads them once a key", unreadMembers, listed, decided)
	}
	got := evalListing(t, listing, withUnread(base, false))
	if got["code"] != "invalid_input" || fmt.Sprint(got["reasons"]) != "[top level: a listing's input may hold at most 64 members]" {
		t.Errorf("the listing of %d members is %v", unreadMembers, got)
	}

	full := atTheBounds(base)
	got = evalListing(t, listing, full)
	if got["code"] != "ok" {
		t.Fatalf("the listing at the bounds is %v", got)
	}
	one := measure(t, listing, full)
	var each work
	for _, entries := range []string{"verbs", "stimuli"} {
		for key := range got[entries].(map[string]any) {
			field := map[string]string{"verbs": "verb_key", "stimuli": "stimulus"}[entries]
			w := measure(t, decision, keyedInput(full, field, key).(map[string]any))
			each = work{each.steps + w.steps, each.allocs + w.allocs, each.bytes + w.bytes}
		}
	}
	t.Logf("at the bounds: a listing %+v, a decision a key %+v", one, each)
	if one.steps >= each.steps || one.allocs >= each.allocs || one.bytes >= each.bytes {
		t.Errorf("at the bounds a listing costs %+v, a decision a key %+v", one, each)
	}
	over := maps.Clone(full)
	over["note"] = strings.Repeat("n", 2000)
	delete(over, "x00")
	if got := evalListing(t, listing, over); got["code"] != "invalid_input" || !strings.Contains(fmt.Sprint(got["reasons"]), "65536 characters") {
		t.Errorf("the listing of over 65,536 characters is %v", got)
	}
}

// atTheBounds fills in up to 64 members and 65,536 characters of names
// and values.
func atTheBounds(in map[string]any) map[string]any {
	out := maps.Clone(in)
	text := func() int {
		n := 0
		for k, v := range out {
			n += len(k)
			if s, ok := v.(string); ok {
				n += len(s)
			}
		}
		return n
	}
	n := 0
	for ; len(out) < 64; n++ {
		out[fmt.Sprintf("x%02d", n)] = ""
	}
	each := (65536 - text()) / n
	for i := range n {
		out[fmt.Sprintf("x%02d", i)] = strings.Repeat("v", each)
	}
	return reparse(out).(map[string]any)
}

// evalListing is the listing pq gives input.
func evalListing(t *testing.T, pq oparego.PreparedEvalQuery, input any) map[string]any {
	t.Helper()
	rs, err := pq.Eval(context.Background(), oparego.EvalInput(input))
	if err != nil || len(rs) != 1 {
		t.Fatalf("%v (%d results)", err, len(rs))
	}
	return rs[0].Expressions[0].Value.(map[string]any)
}
