package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/compare"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// compareLayer is a runtime layer whose rules read what compare's classes
// set (the tenant, the mode): it denies every call of tenant beta and
// asks before any call in mode run, so that compare must look for
// examples it lets through.
const compareLayer = `package hcp.ext

deny contains "beta is frozen" if input.principal.tenant == "beta"

confirm contains "a run is looked at" if input.access.mode == "run"
`

// comparePair is two versions of a repository, as folders holding the
// example packs and a grants.json each.
type comparePair struct {
	name     string
	old, new string
	layer    bool
}

// writeVersion writes the example packs, with policy.json of ledger
// replaced when ledger is not "", and grants into dir.
func writeVersion(t *testing.T, dir, ledger string, grants []map[string]any) string {
	t.Helper()
	treetest.CopyTree(t, packs, filepath.Join(dir, "packs"))
	data, err := json.MarshalIndent(map[string]any{"grants": append([]map[string]any{}, grants...)}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"grants.json": string(data)}
	if ledger != "" {
		files["packs/ledger/policy.json"] = ledger
	}
	treetest.Write(t, dir, files)
	return dir
}

// ledgerPolicy is the example ledger's policy.json with transfer's
// confirm and balance's land as given.
func ledgerPolicy(transferConfirm, balanceLand string) string {
	confirm := ""
	if transferConfirm != "" {
		confirm = `, "confirm": ` + transferConfirm
	}
	return fmt.Sprintf(`{ "surface_id": "ledger", "version": 1,
  "verbs": {
    "transfer": { "operation": "write", "privacy": { "land": "personal" }%s },
    "balance":  { "operation": "read",  "privacy": { "land": %q } },
    "connect":  { "operation": "write", "privacy": { "land": "personal" } } },
  "stimuli": { "payment_received": { "operation": "read", "privacy": { "land": "personal" } } } }`, confirm, balanceLand)
}

// randomGrant draws a grant on the example packs.
func randomGrant(r *rand.Rand) map[string]any {
	subjects := []string{"default", "default", "principal:alice", "principal:bob", "role:member", "role:member", "role:admin", "role:dev", "role:lead"}
	scopes := []struct {
		pack, field, key string
		caps             []string
	}{
		{"ledger", "", "", []string{"verb.exec.read", "verb.exec.write", "pack.connect", "sense.enable"}},
		{"ledger", "verb_key", "transfer", []string{"verb.exec.write"}},
		{"ledger", "verb_key", "balance", []string{"verb.exec.read"}},
		{"ledger", "stimulus", "payment_received", []string{"sense.enable"}},
		{"mail", "", "", []string{"verb.exec.read", "verb.exec.write", "pack.connect"}},
		{"mail", "verb_key", "mail.send", []string{"verb.exec.write"}},
		{"workspace", "", "", []string{"verb.exec.read", "verb.exec.write"}},
	}
	s := scopes[r.IntN(len(scopes))]
	g := map[string]any{"subject": subjects[r.IntN(len(subjects))], "pack_id": s.pack, "capabilities": []any{s.caps[r.IntN(len(s.caps))]}}
	if s.field != "" {
		g[s.field] = s.key
	}
	if t := r.IntN(5); t < 2 {
		g["tenant"] = []string{"acme", "beta"}[t]
	}
	return g
}

// randomPairs are generated pull requests on the example packs: grants
// added, dropped or moved, and ledger's rows changed, from deterministic
// seeds; every third is compared under compareLayer.
func randomPairs(t *testing.T, n int) []comparePair {
	t.Helper()
	var out []comparePair
	confirms, lands := []string{"", "true", `"always"`}, []string{"personal", "brain"}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 53))
		var grants []map[string]any
		for range 3 + r.IntN(6) {
			grants = append(grants, randomGrant(r))
		}
		changed := append([]map[string]any{}, grants...)
		for range 1 + r.IntN(3) {
			if i := r.IntN(len(changed) + 1); i < len(changed) && r.IntN(2) == 0 {
				changed = append(changed[:i:i], changed[i+1:]...)
			} else {
				changed = append(changed, randomGrant(r))
			}
		}
		dir := t.TempDir()
		out = append(out, comparePair{
			name:  fmt.Sprint("seed ", seed),
			old:   writeVersion(t, filepath.Join(dir, "old"), ledgerPolicy(confirms[r.IntN(3)], lands[r.IntN(2)]), grants),
			new:   writeVersion(t, filepath.Join(dir, "new"), ledgerPolicy(confirms[r.IntN(3)], lands[r.IntN(2)]), changed),
			layer: seed%3 == 2,
		})
	}
	return out
}

// cornerPair is the default rule's corner on the example packs: a role
// no grant names gets a grant of what a default grant gives everyone, so
// a principal of that role and one named elsewhere gains it.
func cornerPair(t *testing.T) comparePair {
	t.Helper()
	base := []map[string]any{
		{"subject": "default", "pack_id": "ledger", "verb_key": "balance", "capabilities": []any{"verb.exec.read"}},
		{"subject": "role:dev", "pack_id": "workspace", "capabilities": []any{"verb.exec.read"}},
	}
	dir := t.TempDir()
	return comparePair{
		name: "two roles",
		old:  writeVersion(t, filepath.Join(dir, "old"), "", base),
		new: writeVersion(t, filepath.Join(dir, "new"), "", append(base,
			map[string]any{"subject": "role:auditor", "pack_id": "ledger", "verb_key": "balance", "capabilities": []any{"verb.exec.read"}})),
	}
}

// versionModel checks the version in dir.
func versionModel(t *testing.T, dir string) *compile.Model {
	t.Helper()
	m, err := compile.Checked([]string{filepath.Join(dir, "packs")}, []string{filepath.Join(dir, "grants.json")})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCompareExamplesInOPA compares generated pull requests, and the
// default rule's corner, and decides every example compare gives in a
// real OPA loading each version's bundle (and the runtime layer, where
// the pair has one): OPA's decision has the example's allow, code, row
// and grant, and the example is wider or narrower as it says. An example
// that the layer masks is decided alike by both sidecars.
func TestCompareExamplesInOPA(t *testing.T) {
	t.Parallel()
	ext := filepath.Join(t.TempDir(), "ext")
	treetest.Write(t, ext, map[string]string{"layer.rego": compareLayer})
	opts, err := hcprego.ReadExt([]string{ext}, nil)
	if err != nil {
		t.Fatal(err)
	}
	layer, err := hcprego.NewLayer(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	examples, masked := 0, 0
	for _, p := range append([]comparePair{cornerPair(t)}, randomPairs(t, 24)...) {
		before, after := versionModel(t, p.old), versionModel(t, p.new)
		o := compare.Options{}
		if p.layer {
			o.Layer = layer
		}
		r, err := compare.Compare(context.Background(), before, after, o)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if len(r.Findings) == 0 {
			continue
		}
		args := func(m *compile.Model) []string {
			if p.layer {
				return []string{buildFile(t, m, "", nil), ext}
			}
			return []string{buildFile(t, m, "", nil)}
		}
		oldOPA, newOPA := startOPA(t, args(before)...), startOPA(t, args(after)...)
		oldOPA.waitHealthy(t)
		newOPA.waitHealthy(t)
		for _, f := range r.Findings {
			for _, ex := range []*compare.Example{f.Wider, f.Narrower} {
				if ex == nil {
					continue
				}
				examples++
				input := ex.Call.Input()
				od := decisionOf(oldOPA.query(t, "hcp/authz/decision", input))
				nd := decisionOf(newOPA.query(t, "hcp/authz/decision", input))
				where := fmt.Sprintf("%s: %s %s %s", p.name, f.Pack, f.Kind, f.Key.Key)
				if ex.Masked {
					masked++
					if od.Disposition() != nd.Disposition() {
						t.Errorf("%s: masked, yet OPA decides %s and %s", where, od.Code, nd.Code)
					}
					continue
				}
				if od != ex.Old || nd != ex.New {
					t.Errorf("%s: OPA decides %+v and %+v, compare shows %+v and %+v", where, od, nd, ex.Old, ex.New)
				}
				if wider := ex == f.Wider; (nd.Disposition() > od.Disposition()) != wider || nd.Disposition() == od.Disposition() {
					t.Errorf("%s: OPA decides %s → %s for a %s example", where, od.Code, nd.Code, map[bool]string{true: "wider", false: "narrower"}[wider])
				}
			}
		}
	}
	t.Logf("%d examples decided in OPA, %d masked by the runtime layer", examples, masked)
	if examples < 60 {
		t.Errorf("only %d examples: the pairs test too little", examples)
	}
}

// decisionOf is what an example shows of OPA's decision document.
func decisionOf(v any) compare.Decision {
	doc, _ := v.(map[string]any)
	var d compare.Decision
	d.Allow, _ = doc["allow"].(bool)
	d.Code, _ = doc["code"].(string)
	source, _ := doc["source"].(map[string]any)
	d.Row, _ = source["row"].(string)
	d.Grant, _ = source["grant"].(string)
	return d
}
