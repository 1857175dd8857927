package rego_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/explain"
	"github.com/hcp-rego/hcp-rego/internal/reference"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// grantsC gives tenants spread over the shards of a build of 4 (docs/fleet.md):
// grants of every shape: a role's, a principal's on one command and
// on one trigger, and default grants with a tenant, which a principal of
// that tenant loses when it is named in its tenant's shard. With 4
// shards: t2 and nobody-here are in shard 0; other, ünï and t4 in 1;
// t3, 日本 and beta in 2; acme, t1 and t5 in 3.
const grantsC = `{"version": 1, "grants": [
  {"subject": "role:member", "tenant": "t1", "pack_id": "alpha", "capabilities": ["verb.exec.write", "pack.connect"]},
  {"subject": "principal:m3", "tenant": "other", "pack_id": "alpha", "verb_key": "write.personal.open", "capabilities": ["verb.exec.write"]},
  {"subject": "default", "tenant": "t2", "pack_id": "alpha", "capabilities": ["verb.exec.write", "sense.enable"]},
  {"subject": "role:ops", "tenant": "日本", "pack_id": "beta-pack", "capabilities": ["pack.connect", "verb.exec.write"]},
  {"subject": "principal:alice", "tenant": "t3", "pack_id": "alpha", "stimulus": "seen.brain", "capabilities": ["sense.enable"]},
  {"subject": "role:watch", "tenant": "t4", "pack_id": "alpha", "capabilities": ["sense.enable", "verb.exec.read"]},
  {"subject": "default", "tenant": "ünï", "pack_id": "beta-pack", "stimulus": "sync", "capabilities": ["sense.enable"]},
  {"subject": "principal:w2", "tenant": "t5", "pack_id": "beta-pack", "capabilities": ["verb.exec.read"]}
]}`

// shardTenants are the tenants the sharded differential gives principals:
// each of grantsA, grantsB and grantsC, one no grant names, and the empty
// one, which names no tenant.
var shardTenants = []string{"acme", "beta", "other", "t1", "t2", "t3", "t4", "t5", "日本", "ünï", "nobody-here", ""}

// policyShards is the number of shards of the build the sidecars decide
// with; foreignShards those of the builds whose shards a sidecar may be
// given by mistake.
const policyShards = 4

var foreignShards = []int{3, 5}

// shardedSet is the differential pack set with grantsC, compiled
// unsharded and built sharded (compile.BuildShards, read back from the
// files as a sidecar reads them) into policyShards shards and into each
// of foreignShards.
type shardedSet struct {
	model     *compile.Model
	unsharded *bundle.Bundle
	policy    *bundle.Bundle
	shards    map[int][]*bundle.Bundle // by the build's number of shards, by index
}

func newShardedSet(t *testing.T) *shardedSet {
	t.Helper()
	dir := t.TempDir()
	files := diffFiles()
	files["grants/c.json"] = grantsC
	treetest.Write(t, dir, files)
	packs := []string{filepath.Join(dir, "packs/alpha"), filepath.Join(dir, "packs/beta-pack")}
	var grants []string
	for _, g := range []string{"a", "b", "c"} {
		grants = append(grants, filepath.Join(dir, "grants", g+".json"))
	}
	m, err := compile.Checked(packs, grants)
	if err != nil {
		t.Fatalf("the sharded pack set must load and lint clean:\n%v", err)
	}
	unsharded, err := compile.Compile(m, "")
	if err != nil {
		t.Fatal(err)
	}
	set := &shardedSet{model: m, unsharded: unsharded, shards: map[int][]*bundle.Bundle{}}
	for _, n := range append([]int{policyShards}, foreignShards...) {
		out := filepath.Join(dir, fmt.Sprintf("build-%d", n))
		if _, err := compile.BuildShards(compile.BuildOptions{Packs: packs, Grants: grants, Output: out}, n); err != nil {
			t.Fatal(err)
		}
		for k := range n {
			set.shards[n] = append(set.shards[n], readBundle(t, filepath.Join(out, bundles.ShardFile(k))))
		}
		if n == policyShards {
			set.policy = readBundle(t, filepath.Join(out, bundles.PolicyFile))
		}
	}
	return set
}

func readBundle(t *testing.T, path string) *bundle.Bundle {
	t.Helper()
	b, err := bundles.Read(path, nil, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cell is what one sidecar loads beside the policy bundle: shards, each
// the index K of a build of `of` shards.
type cell []struct{ of, k int }

func (c cell) String() string {
	var parts []string
	for _, s := range c {
		parts = append(parts, fmt.Sprintf("%d/%d", s.k, s.of))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// own is a cell of the policy's own shards ks.
func own(ks ...int) cell {
	var c cell
	for _, k := range ks {
		c = append(c, struct{ of, k int }{policyShards, k})
	}
	return c
}

// holdsOwn reports whether c holds one of the policy's own shards, each
// of which holds grants of grants/c.json.
func (c cell) holdsOwn() bool {
	return slices.ContainsFunc(c, func(s struct{ of, k int }) bool { return s.of == policyShards })
}

// with is c and shard k of a build of `of` shards.
func (c cell) with(of, k int) cell {
	return append(slices.Clone(c), struct{ of, k int }{of, k})
}

// cells are the sets of shards the differential loads: none, all, one,
// some, and shards of another build beside the policy's (at an index
// none of the policy's loaded shards has, as a sidecar requires; an
// index past the policy's N, too), and random subsets.
func cells(r *rand.Rand) []cell {
	out := []cell{
		own(), own(0, 1, 2, 3), own(1), own(0, 2), own(1, 2, 3),
		own(3).with(3, 0), own(0, 1).with(3, 2), own(0, 1, 2, 3).with(5, 4), own(2).with(5, 1).with(3, 0),
	}
	for range 3 {
		var c cell
		for k := range policyShards {
			switch r.IntN(3) {
			case 0:
				c = c.with(policyShards, k)
			case 1:
				if of := foreignShards[r.IntN(len(foreignShards))]; k < of {
					c = c.with(of, k)
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// sidecar is the evaluator of a sidecar that loads the policy bundle and
// c, and the reference that decides as it: the policy's number of
// shards, and each loaded shard's index and build.
func (s *shardedSet) sidecar(t *testing.T, c cell) *pair {
	t.Helper()
	p, _ := s.sidecarBundle(t, c)
	return p
}

// sidecarBundle is sidecar with the bundle its evaluator decides with:
// the policy bundle merged with c (bundles.Merge).
func (s *shardedSet) sidecarBundle(t *testing.T, c cell) (*pair, *bundle.Bundle) {
	t.Helper()
	var loaded []*bundle.Bundle
	roots := []bundles.BundleRoots{{Name: bundles.PolicyFile, Roots: *s.policy.Manifest.Roots}}
	shards := reference.Shards{Of: policyShards, Loaded: map[int]int{}}
	for _, sh := range c {
		b := s.shards[sh.of][sh.k]
		loaded = append(loaded, b)
		roots = append(roots, bundles.BundleRoots{Name: fmt.Sprintf("%d/%d", sh.k, sh.of), Roots: *b.Manifest.Roots})
		shards.Loaded[sh.k] = sh.of
	}
	if err := bundles.CheckApart(roots...); err != nil {
		t.Fatalf("cell %v is not one a sidecar loads: %v", c, err)
	}
	merged := bundles.Merge(s.policy, loaded)
	ev, err := hcprego.New(context.Background(), merged)
	if err != nil {
		t.Fatal(err)
	}
	return &pair{rego: ev, ref: reference.New(s.model.Packs(), s.model.Grants()).WithShards(shards)}, merged
}

// shardInputs are n inputs for the sharded differential: half random
// inputs of the differential (newRandomInputs, many malformed), the
// principal of each given a tenant of shardTenants or none; half calls
// aimed at a grant of the model (aimed), so that every shard's grants
// decide some; one in six a listing's input.
func shardInputs(m *compile.Model, seed uint64, n int) []any {
	gen := newRandomInputs(m, seed)
	r := rand.New(rand.NewPCG(seed, seed+1))
	all := calls(m)
	out := make([]any, n)
	for i := range out {
		var in any
		if r.IntN(2) == 0 {
			in = gen.next()
			retenant(r, in)
		} else {
			in = aimed(r, m, all)
		}
		if r.IntN(6) == 0 {
			in = listingInput(in)
		}
		out[i] = in
	}
	return out
}

// aimed is a well-formed call that a random grant of m is for: its
// principal is the grant's subject (an id no grant names for a default
// grant), sometimes with another role, of the grant's tenant (or,
// sometimes or for a grant without one, a tenant of shardTenants); its
// call is the grant's command or trigger, or a row of its pack; its land
// facts mostly hold.
func aimed(r *rand.Rand, m *compile.Model, all []call) any {
	grants := m.Grants()
	g := grants[r.IntN(len(grants))]
	p := map[string]any{"id": "zed"}
	var roles []any
	switch kind, name, _ := strings.Cut(g.Subject, ":"); kind {
	case "principal":
		p["id"] = name
	case "role":
		roles = append(roles, name)
	}
	if r.IntN(3) == 0 {
		roles = append(roles, []any{"member", "ops", "watch"}[r.IntN(3)])
	}
	if roles != nil {
		p["roles"] = roles
	}
	if p["tenant"] = g.Tenant; g.Tenant == "" || r.IntN(5) == 0 {
		p["tenant"] = shardTenants[r.IntN(len(shardTenants))]
	}
	c := call{g.PackID, "verb_key", g.VerbKey}
	switch {
	case g.Stimulus != "":
		c = call{g.PackID, "stimulus", g.Stimulus}
	case g.VerbKey == "" || r.IntN(4) == 0:
		var ofPack []call
		for _, c := range all {
			if c.pack == g.PackID {
				ofPack = append(ofPack, c)
			}
		}
		c = ofPack[r.IntN(len(ofPack))]
	}
	facts := landFacts(p)
	f := facts[0]
	if r.IntN(4) == 0 {
		f = facts[r.IntN(len(facts))]
	}
	return reparse(gridInput(c, p, modes[r.IntN(len(modes))], approvals[r.IntN(len(approvals))], nil, f))
}

// retenant gives in's principal, when it has one whose tenant is a string
// or absent, a tenant of shardTenants or none; a tenant of another type
// stays, for the well-formedness step.
func retenant(r *rand.Rand, in any) {
	doc, _ := in.(map[string]any)
	p, ok := doc["principal"].(map[string]any)
	if !ok {
		return
	}
	if v, has := p["tenant"]; has {
		if _, isString := v.(string); !isString {
			return
		}
	}
	if k := r.IntN(len(shardTenants) + 1); k < len(shardTenants) {
		p["tenant"] = shardTenants[k]
	} else {
		delete(p, "tenant")
	}
}

// isListing reports whether in is a listing's input (no key).
func isListing(in any) bool {
	doc, ok := in.(map[string]any)
	if !ok {
		return false
	}
	_, verb := doc["verb_key"]
	_, stimulus := doc["stimulus"]
	return !verb && !stimulus
}

// TestDifferentialShards decides random inputs in sidecars that load the
// policy bundle of a build of 4 shards and a set of shards (none, all,
// some, and shards of builds of 3 and 5): Rego and the Go reference,
// which is told the shards and decides tenant_unavailable apart from the
// library, agree on every decision, GPARS error and listing. Each cell
// reaches tenant_unavailable when it lacks a shard some tenant needs, and
// each reaches past the tenant step with a tenant's own grant.
func TestDifferentialShards(t *testing.T) {
	set := newShardedSet(t)
	r := rand.New(rand.NewPCG(36, 36))
	inputs := shardInputs(set.model, 36, scaled(10_000))
	for _, c := range cells(r) {
		t.Run(c.String(), func(t *testing.T) {
			p := set.sidecar(t, c)
			codes := agreeShards(t, p, inputs)
			wantUnavailable := !slices.Equal(c, own(0, 1, 2, 3)) && !slices.Equal(c, own(0, 1, 2, 3).with(5, 4))
			if got := codes["tenant_unavailable"] > 0; got != wantUnavailable {
				t.Errorf("tenant_unavailable decided %d times; want some: %v (codes %v)", codes["tenant_unavailable"], wantUnavailable, codes)
			}
			if codes["allowed"] == 0 || c.holdsOwn() && codes["grant c.json"] == 0 {
				t.Errorf("too few decisions past the tenant step: %v", codes)
			}
		})
	}
}

// agreeShards compares every input with both implementations on parallel
// workers (a decision, or a listing for a keyless input), fails on the
// first disagreements, and tallies the Rego decisions' codes, and how
// many named a grant of grants/c.json ("grant c.json").
func agreeShards(t *testing.T, p *pair, inputs []any) map[string]int {
	t.Helper()
	var mu sync.Mutex
	codes, failures := map[string]int{}, 0
	work := make(chan any)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for in := range work {
				var got map[string]any
				var diff string
				if isListing(in) {
					diff = p.compareListing(t, in, false)
				} else {
					got, diff = p.compare(in)
				}
				mu.Lock()
				tally(codes, got)
				if diff != "" {
					if failures++; failures <= 5 {
						t.Errorf("Rego and the Go reference disagree on input %s:\n%s", jsonText(in), diff)
					}
				}
				mu.Unlock()
			}
		})
	}
	for _, in := range inputs {
		work <- in
	}
	close(work)
	wg.Wait()
	if failures > 5 {
		t.Errorf("... %d disagreements in all", failures)
	}
	return codes
}

// tally counts a decision's code, and its grant when it is one of
// grants/c.json.
func tally(codes map[string]int, decision map[string]any) {
	if decision == nil {
		return
	}
	code, _ := decision["code"].(string)
	codes[code]++
	source, _ := decision["source"].(map[string]any)
	if grant, _ := source["grant"].(string); strings.Contains(grant, "c.json:") {
		codes["grant c.json"]++
	}
}

// TestShardsAllLoadedIsUnsharded holds a sidecar that loads every shard
// (with and without a shard of another build at an index the policy's
// build has not) to the unsharded bundle of the same inputs: the same
// decision documents, source.grant included, GPARS errors and listings,
// on random inputs.
func TestShardsAllLoadedIsUnsharded(t *testing.T) {
	set := newShardedSet(t)
	unsharded, err := hcprego.New(context.Background(), set.unsharded)
	if err != nil {
		t.Fatal(err)
	}
	inputs := shardInputs(set.model, 37, scaled(20_000))
	for _, c := range []cell{own(0, 1, 2, 3), own(0, 1, 2, 3).with(5, 4)} {
		t.Run(c.String(), func(t *testing.T) {
			sharded := set.sidecar(t, c).rego
			failures, grants := 0, 0
			for _, in := range inputs {
				diff, grant := sameAnswers(t, sharded, unsharded, in)
				if grant {
					grants++
				}
				if diff != "" {
					if failures++; failures <= 5 {
						t.Errorf("the sharded sidecar and the unsharded bundle disagree on input %s:\n%s", jsonText(in), diff)
					}
				}
			}
			if grants == 0 {
				t.Error("no decision named a grant of a tenant's shard (grants/c.json)")
			}
		})
	}
}

// sameAnswers compares the answers of two evaluators to in: its decision
// and GPARS error, or its listing. grant says whether the decision named
// a grant of grants/c.json, which only shards hold.
func sameAnswers(t *testing.T, sharded, unsharded *hcprego.Evaluator, in any) (diff string, grant bool) {
	t.Helper()
	ctx := context.Background()
	if isListing(in) {
		a, errA := sharded.Permissions(ctx, in)
		b, errB := unsharded.Permissions(ctx, in)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		return strings.Join(diffJSON("permissions", normalize(a.Doc), normalize(b.Doc)), "\n"), false
	}
	a, errA := sharded.Decide(ctx, in)
	b, errB := unsharded.Decide(ctx, in)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	diffs := diffJSON("decision", normalize(a.Decision.Doc), normalize(b.Decision.Doc))
	diffs = append(diffs, diffJSON("gpars_error", normalize(errorOf(a)), normalize(errorOf(b)))...)
	return strings.Join(diffs, "\n"), strings.Contains(a.Decision.SourceGrant, "c.json:")
}

// errorOf is a result's GPARS error, nil when undefined.
func errorOf(res *hcprego.Result) any {
	if res.GPARSError == nil {
		return nil
	}
	return res.GPARSError
}

// TestExplainShards walks eval --explain over sharded sidecars' decisions
// (bundles.ShardingOf the merged bundle, no model, as eval --bundle has
// it): the tenant step stops exactly on tenant_unavailable, saying why
// (its shard missing, or loaded from another build, and what is loaded);
// otherwise it says the tenant's shard is loaded, or that the principal
// has none.
func TestExplainShards(t *testing.T) {
	set := newShardedSet(t)
	inputs := shardInputs(set.model, 38, scaled(4000))
	seen := map[string]int{}
	for _, c := range []cell{own(), own(0, 2), own(3).with(3, 0), own(0, 1, 2, 3)} {
		p, merged := set.sidecarBundle(t, c)
		sh := bundles.ShardingOf(merged)
		for _, in := range inputs {
			if isListing(in) {
				continue
			}
			res, err := p.rego.Decide(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			steps := explain.ExplainSharded(sh, nil, in, res.Decision, res.RuntimeConfirm, nil)
			for _, why := range disagreements(steps, res.Decision) {
				t.Errorf("cell %v: explain contradicts the decision %s on %s: %s", c, res.Decision.Code, jsonText(in), why)
			}
			for _, st := range steps {
				if st.Name != "tenant" || st.Status == explain.NotReached {
					continue
				}
				kind := tenantDetailKind(strings.Join(st.Detail, " | "))
				seen[string(st.Status)+" "+kind]++
				if ok := st.Status == explain.Passed; ok != (kind == "loaded" || kind == "no tenant") {
					t.Errorf("cell %v: tenant step %s says %q on %s", c, st.Status, st.Detail, jsonText(in))
				}
			}
		}
	}
	for _, want := range []string{"ok loaded", "ok no tenant", "STOP missing", "STOP another build"} {
		if seen[want] == 0 {
			t.Errorf("no tenant step %q: %v", want, seen)
		}
	}
}

// tenantDetailKind classifies what the tenant step said.
func tenantDetailKind(text string) string {
	switch {
	case strings.Contains(text, "has no tenant"):
		return "no tenant"
	case strings.Contains(text, "of a build of") && strings.Contains(text, "loaded here: shards"):
		return "another build"
	case strings.Contains(text, "which is not loaded here") && strings.Contains(text, "loaded here: "):
		return "missing"
	case strings.Contains(text, ", loaded here"):
		return "loaded"
	}
	return "unknown: " + text
}
