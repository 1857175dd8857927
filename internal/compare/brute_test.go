package compare

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// The brute force decides, with the Go reference evaluator, every class
// of calls of the test repositories, and holds compare's verdicts to what
// it finds. It shares nothing with compare's analysis.

// bruteIDs, bruteTenants and bruteRoles are every class of each part of
// a principal: each named id and one no grant names; no tenant, an empty
// one, each named tenant and one no grant names; each named role and one
// no grant names, in every subset.
var (
	bruteIDs     = append(append([]string{}, testIDs...), "zz-unnamed")
	bruteTenants = append([]any{nil, ""}, "t1", "t2", "t-unnamed")
	bruteRoles   = append(append([]string{}, testRoles...), "r-unnamed")
)

// everyPrincipal lists every principal class: 3 ids, 5 tenants and the 16
// subsets of four roles.
func everyPrincipal() []map[string]any {
	var out []map[string]any
	for _, id := range bruteIDs {
		for _, tenant := range bruteTenants {
			for set := range 1 << len(bruteRoles) {
				roles := []any{}
				for i, role := range bruteRoles {
					if set&(1<<i) != 0 {
						roles = append(roles, role)
					}
				}
				p := map[string]any{"id": id, "roles": roles, "projects": []any{"p-in"}}
				if tenant != nil {
					p["tenant"] = tenant
				}
				out = append(out, p)
			}
		}
	}
	return out
}

// everyContext lists every class of the rest of a call for key k by
// principal p: owner p or another or none; a project of p's or another or
// none; a workspace path inside the root or outside or none; no access,
// mode ask or mode run, each with nothing, confirm, apply or a matching
// allow rule; pack_reachable absent or false.
func everyContext(k Key, p map[string]any) []map[string]any {
	var out []map[string]any
	for _, owner := range []any{p["id"], "zz-other", nil} {
		for _, project := range []any{"p-in", "p-out", nil} {
			for _, paths := range [][]any{{"/w/f"}, {"/x/f"}, nil} {
				for _, mode := range []any{nil, "ask", "run"} {
					for approve := range 4 {
						for _, reachable := range []any{nil, false} {
							in := map[string]any{"principal": p, "pack_id": k.Pack, k.Kind.Field(): k.Key, "args": map[string]any{}}
							set(in, "owner", owner)
							set(in, "project_id", project)
							if paths != nil {
								in["workspace"] = map[string]any{"root": "/w", "paths": paths}
							}
							access := map[string]any{}
							set(access, "mode", mode)
							switch approve {
							case 1:
								in["confirm"] = true
							case 2:
								in["apply"] = true
							case 3:
								access["allow"] = []any{map[string]any{"pack_id": k.Pack, "verb_key": k.Key}}
							}
							if len(access) > 0 {
								in["access"] = access
							}
							set(in, "pack_reachable", reachable)
							out = append(out, in)
						}
					}
				}
			}
		}
	}
	return out
}

func set(m map[string]any, name string, v any) {
	if v != nil {
		m[name] = v
	}
}

// bruteKey is what the brute force found for a key: some call decided
// more permissively by NEW, some less.
type bruteKey struct{ wider, narrower bool }

// bruteForce decides every class of calls of every key of either version.
// A principal reaches the chain's later steps only through whether it
// holds the key's capability (docs/decisions.md#the-chain: its id and
// projects enter the land check only by equality with owner and
// project_id, which every context sets relative to it), so every principal
// is decided with every land fact holding and confirm given, and one
// principal of each pair (held under OLD, held under NEW) is decided in
// every context.
func bruteForce(t *testing.T, before, after *compile.Model) map[Key]bruteKey {
	t.Helper()
	evOld := reference.New(before.Packs(), before.Grants())
	evNew := reference.New(after.Packs(), after.Grants())
	out := map[Key]bruteKey{}
	for _, k := range keysOf(before, after) {
		reps := map[[2]bool]map[string]any{}
		for _, p := range everyPrincipal() {
			in := map[string]any{"principal": p, "pack_id": k.Pack, k.Kind.Field(): k.Key, "owner": p["id"],
				"project_id": "p-in", "workspace": map[string]any{"root": "/w", "paths": []any{"/w/f"}}, "confirm": true}
			pair := [2]bool{holds(evOld.Decide(in, reference.Ext{})), holds(evNew.Decide(in, reference.Ext{}))}
			if reps[pair] == nil {
				reps[pair] = p
			}
		}
		var b bruteKey
		for _, p := range reps {
			for _, in := range everyContext(k, p) {
				o := dispositionOf(evOld.Decide(in, reference.Ext{})["code"].(string))
				n := dispositionOf(evNew.Decide(in, reference.Ext{})["code"].(string))
				b.wider = b.wider || n > o
				b.narrower = b.narrower || n < o
			}
		}
		out[k] = b
	}
	return out
}

// holds reports whether a decision with every land fact holding and
// confirm given passed the capability step.
func holds(doc map[string]any) bool {
	switch doc["code"] {
	case "allowed":
		return true
	case "capability_required", "unknown_command":
		return false
	}
	panic(fmt.Sprintf("unexpected decision %v", doc))
}

// bruteVerdict is the verdict the brute force gives a key.
func bruteVerdict(before, after *compile.Model, k Key, b bruteKey) Verdict {
	return verdictOf(rowOf(before, k), rowOf(after, k), flag(b.wider), flag(b.narrower))
}

// flag is a list of combos that is empty or not, as verdictOf reads it.
func flag(set bool) []combo {
	if set {
		return []combo{{}}
	}
	return nil
}

// checkAgainstBrute compares the two versions with compare and with the
// brute force, and fails t where they differ: a verdict, or an example
// that is missing or present where the brute force found no such call.
func checkAgainstBrute(t *testing.T, before, after *compile.Model) *Report {
	t.Helper()
	r, err := Compare(context.Background(), before, after, Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := map[Key]Finding{}
	for _, f := range r.Findings {
		found[f.Key] = f
	}
	for k, b := range bruteForce(t, before, after) {
		f, ok := found[k]
		if !ok {
			f = Finding{Key: k, Verdict: Same}
		}
		if want := bruteVerdict(before, after, k, b); f.Verdict != want {
			t.Errorf("%s %s %s: verdict %s, brute force %s", k.Pack, k.Kind, k.Key, f.Verdict, want)
		}
		if (f.Wider != nil) != b.wider || (f.Narrower != nil) != b.narrower {
			t.Errorf("%s %s %s: examples wider %v narrower %v, brute force found wider %v narrower %v",
				k.Pack, k.Kind, k.Key, f.Wider != nil, f.Narrower != nil, b.wider, b.narrower)
		}
	}
	return r
}

// TestRandomPairsAgainstBruteForce compares generated pairs of
// repositories (a repository and a changed copy, deterministic seeds)
// with compare and with the brute force.
func TestRandomPairsAgainstBruteForce(t *testing.T) {
	pairsAgainstBrute(t, 40, 12, 37, func(r *rand.Rand) (repo, repo) {
		before := randomRepo(r, 2+r.IntN(8))
		return before, mutate(r, before)
	})
}

// TestDensePairsAgainstBruteForce compares generated pairs of one pack
// with grants to roles and default alone: where the default rule's
// corners come.
func TestDensePairsAgainstBruteForce(t *testing.T) {
	pairsAgainstBrute(t, 80, 40, 41, func(r *rand.Rand) (repo, repo) {
		before := denseRepo(r, 1+r.IntN(5))
		return before, mutateDense(r, before)
	})
}

// pairsAgainstBrute compares n pairs of repositories (short of them with
// -short) that pair makes from seeds 0 to n-1 of stream, with compare and
// with the brute force, and logs the pair that fails.
func pairsAgainstBrute(t *testing.T, n, short int, stream uint64, pair func(*rand.Rand) (repo, repo)) {
	if testing.Short() {
		n = short
	}
	for seed := range n {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			before, after := pair(rand.New(rand.NewPCG(uint64(seed), stream)))
			dir := t.TempDir()
			checkAgainstBrute(t, before.model(t, filepath.Join(dir, "old")), after.model(t, filepath.Join(dir, "new")))
			if t.Failed() {
				t.Logf("OLD:\n%s\nNEW:\n%s", mustJSON(before), mustJSON(after))
			}
		})
	}
}
