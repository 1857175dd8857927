package compare

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// layerFunc is a runtime layer written in Go, for the tests.
type layerFunc func(input map[string]any) (deny, confirm any)

func (f layerFunc) Values(_ context.Context, input map[string]any) (any, any, error) {
	d, c := f(input)
	return d, c, nil
}

// widenedPair is OLD without and NEW with a default grant that lets
// everyone read v1, which has no gate, and write v2, gated.
func widenedPair(t *testing.T) (before, after *compile.Model) {
	t.Helper()
	b := repo{Packs: map[string]pack{"p1": {Verbs: map[string]row{
		"v1": {Operation: "read", Land: "personal"},
		"v2": {Operation: "write", Land: "personal", Confirm: true},
	}, Stimuli: map[string]row{}}}}
	a := b.clone()
	a.Grants = []grant{{Subject: "default", PackID: "p1", Capabilities: []string{compile.CapRead, compile.CapWrite}}}
	dir := t.TempDir()
	return b.model(t, filepath.Join(dir, "old")), a.model(t, filepath.Join(dir, "new"))
}

// TestLayerKeepsVerdicts: whatever a runtime layer does, the verdicts are
// the policy's (a layer can only take differences away, and may not take
// them from every call of a class); the examples are the ones the layer
// lets through, decided with it, or, where it lets none through, decided
// without it and marked masked.
func TestLayerKeepsVerdicts(t *testing.T) {
	before, after := widenedPair(t)
	for _, tt := range []struct {
		name           string
		layer          layerFunc
		v1, v2         string // the examples' NEW codes
		masked1, mask2 bool
	}{
		{"none", nil, "allowed", "allowed", false, false},
		{"fires on a field no class sets", func(in map[string]any) (any, any) { return in["runtime"], nil }, "allowed", "allowed", false, false},
		{"confirms every call", func(map[string]any) (any, any) { return nil, []any{"always ask"} }, "confirm_required", "allowed", false, false},
		{"denies every call", func(map[string]any) (any, any) { return []any{"no"}, nil }, "allowed", "allowed", true, true},
		{"denies v1 alone", func(in map[string]any) (any, any) { return in["verb_key"] == "v1", nil }, "allowed", "allowed", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{}
			if tt.layer != nil {
				o.Layer = tt.layer
			}
			r, err := Compare(context.Background(), before, after, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Findings) != 2 {
				t.Fatalf("findings %+v, want v1 and v2 wider", r.Findings)
			}
			for i, want := range []struct {
				code   string
				masked bool
			}{{tt.v1, tt.masked1}, {tt.v2, tt.mask2}} {
				f := r.Findings[i]
				if f.Verdict != Wider || f.Wider == nil {
					t.Fatalf("%s: %s, want wider with an example", f.Key.Key, f.Verdict)
				}
				if f.Wider.New.Code != want.code || f.Wider.Masked != want.masked {
					t.Errorf("%s: example NEW %s masked %v, want %s masked %v", f.Key.Key, f.Wider.New.Code, f.Wider.Masked, want.code, want.masked)
				}
				if f.Wider.New.Disposition() <= f.Wider.Old.Disposition() {
					t.Errorf("%s: the example is not wider: %s → %s", f.Key.Key, f.Wider.Old.Code, f.Wider.New.Code)
				}
			}
		})
	}
}

// TestLayerOnlyTakesDifferencesAway checks the argument that lets compare
// decide without the runtime layer (docs/compare.md): on every class of
// calls of generated pairs, a layer that denies, confirms or both, the
// same on both versions, never makes the versions decide a call more
// permissively one way where they did not without it.
func TestLayerOnlyTakesDifferencesAway(t *testing.T) {
	n := 20
	if testing.Short() {
		n = 4
	}
	layers := []reference.Ext{{Deny: true}, {Confirm: true}, {Deny: true, Confirm: true}}
	for seed := range n {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 43))
			b := denseRepo(r, 1+r.IntN(5))
			a := mutateDense(r, b)
			dir := t.TempDir()
			before, after := b.model(t, filepath.Join(dir, "old")), a.model(t, filepath.Join(dir, "new"))
			evOld, evNew := reference.New(before.Packs(), before.Grants()), reference.New(after.Packs(), after.Grants())
			for _, k := range keysOf(before, after) {
				for _, in := range layerContexts(k) {
					o := dispositionOf(evOld.Decide(in, reference.Ext{})["code"].(string))
					n := dispositionOf(evNew.Decide(in, reference.Ext{})["code"].(string))
					for _, x := range layers {
						lo := dispositionOf(evOld.Decide(in, x)["code"].(string))
						ln := dispositionOf(evNew.Decide(in, x)["code"].(string))
						if (ln > lo && n <= o) || (ln < lo && n >= o) {
							t.Fatalf("%+v: with the layer %v → %v, without it %v → %v\n%v", x, lo, ln, o, n, in)
						}
					}
				}
			}
		})
	}
}

// layerContexts are the calls of key k on which a layer acts: by an id
// no grant names and one that is, each with every subset of the named
// roles; each land fact holding or failing; mode ask or run, with
// nothing, confirm or a matching allow rule.
func layerContexts(k Key) []map[string]any {
	var out []map[string]any
	for _, id := range []string{"a", "zz-unnamed"} {
		for set := range 1 << len(testRoles) {
			roles := []any{}
			for i, role := range testRoles {
				if set&(1<<i) != 0 {
					roles = append(roles, role)
				}
			}
			p := map[string]any{"id": id, "roles": roles, "projects": []any{"p-in"}}
			for lands := range 8 {
				for _, mode := range []string{"ask", "run"} {
					for approve := range 3 {
						in := map[string]any{"principal": p, "pack_id": k.Pack, k.Kind.Field(): k.Key, "args": map[string]any{},
							"owner": id, "project_id": "p-in", "workspace": map[string]any{"root": "/w", "paths": []any{"/w/f"}}}
						if lands&1 != 0 {
							in["owner"] = "zz-other"
						}
						if lands&2 != 0 {
							in["project_id"] = "p-out"
						}
						if lands&4 != 0 {
							in["workspace"] = map[string]any{"root": "/w", "paths": []any{"/x/f"}}
						}
						access := map[string]any{"mode": mode}
						switch approve {
						case 1:
							in["confirm"] = true
						case 2:
							access["allow"] = []any{map[string]any{"pack_id": k.Pack, "verb_key": k.Key}}
						}
						in["access"] = access
						out = append(out, in)
					}
				}
			}
		}
	}
	return out
}

// TestLayerTriesBounded: a layer that denies every call makes compare
// try at most maxLayerTries calls for each example, on generated pairs
// whose keys have many classes of calls decided differently.
func TestLayerTriesBounded(t *testing.T) {
	most := 0
	for seed := range 20 {
		r := rand.New(rand.NewPCG(uint64(seed), 59))
		b := randomRepo(r, 8+r.IntN(8))
		a := mutate(r, b)
		dir := t.TempDir()
		before, after := b.model(t, filepath.Join(dir, "old")), a.model(t, filepath.Join(dir, "new"))
		var mu sync.Mutex
		tries := map[Key]int{}
		deny := layerFunc(func(in map[string]any) (any, any) {
			mu.Lock()
			defer mu.Unlock()
			k := Key{Pack: in["pack_id"].(string), Kind: compile.Verb}
			if key, ok := in["stimulus"].(string); ok {
				k.Kind, k.Key = compile.Stimulus, key
			} else {
				k.Key = in["verb_key"].(string)
			}
			tries[k]++
			return []any{"maintenance"}, nil
		})
		rep, err := Compare(context.Background(), before, after, Options{Layer: deny})
		if err != nil {
			t.Fatal(err)
		}
		examples := map[Key]int{}
		for _, f := range rep.Findings {
			for _, ex := range []*Example{f.Wider, f.Narrower} {
				if ex != nil {
					examples[f.Key]++
					if !ex.Masked {
						t.Errorf("seed %d, %s: an example through a layer that denies everything", seed, f.Key.Key)
					}
				}
			}
		}
		for key, n := range tries {
			most = max(most, n)
			if n > maxLayerTries*examples[key] {
				t.Errorf("seed %d, %s: %d calls tried for %d examples, want at most %d each", seed, key.Key, n, examples[key], maxLayerTries)
			}
		}
	}
	if most < maxLayerTries {
		t.Errorf("no key tried more than %d calls: the pairs do not test the bound", most)
	}
}
