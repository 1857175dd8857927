package testrun

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/discover"
	"github.com/hcp-rego/hcp-rego/internal/policy"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// TestCaseBundlesAreChecked checks that the bundle of a case file's packs
// and grants is compiled from a checked model: a pack that lint rejects is
// not compiled, while a grant on a pack outside the set is inert, since
// the run checked it against every pack.
func TestCaseBundlesAreChecked(t *testing.T) {
	dir := t.TempDir()
	treetest.Write(t, dir, map[string]string{
		"shop/manifest.json": `{"id": "shop", "commands": {"browse": {}}}`,
		"shop/policy.json":   `{"surface_id": "shop", "verbs": {"browse": {"operation": "read", "privacy": {"land": "personal"}}}}`,
		"bad/manifest.json":  `{"id": "bad", "commands": {"browse": {}, "buy": {}}}`,
		"bad/policy.json":    `{"surface_id": "bad", "verbs": {"browse": {"operation": "read", "privacy": {"land": "personal"}}}}`,
		"grants.json":        `{"grants": [{"subject": "role:buyer", "pack_id": "mall", "capabilities": ["verb.exec.read"]}]}`,
	})
	t.Chdir(dir)
	e := newEvaluators(compile.Limits{}, policy.BundleReader{})
	if _, err := e.bundle(caseSet{packs: []string{"shop"}, grants: []string{"grants.json"}}); err != nil {
		t.Errorf("a grant on a pack outside the set: %v", err)
	}
	_, err := e.bundle(caseSet{packs: []string{"bad"}})
	if err == nil || !strings.Contains(err.Error(), `verb "buy" missing from policy.json`) {
		t.Errorf("a pack lint rejects: %v, want its finding", err)
	}
}

// TestRunReleasesEvaluators runs case files on the run's own set, with
// and without runtime layers, and on a set of one pack: once a case
// file's cases are decided, the evaluators of its runtime layers are
// dropped, and a set's bundle once no later case file names it. What
// stays is the run's own bundle and its evaluator without a layer. The
// cases decide as they would with everything kept.
func TestRunReleasesEvaluators(t *testing.T) {
	dir := t.TempDir()
	pack := func(id string) map[string]string {
		return map[string]string{
			id + "/manifest.json": `{"id": "` + id + `", "commands": {"browse": {}}}`,
			id + "/policy.json":   `{"surface_id": "` + id + `", "verbs": {"browse": {"operation": "read", "privacy": {"land": "personal"}}}}`,
		}
	}
	files := map[string]string{
		"grants.json": `{"grants": [{"subject": "role:buyer", "pack_id": "shop", "capabilities": ["verb.exec.read"]}, {"subject": "role:buyer", "pack_id": "mall", "capabilities": ["verb.exec.read"]}]}`,
	}
	maps.Copy(files, pack("shop"))
	maps.Copy(files, pack("mall"))
	input := func(pack string) string {
		return `{principal: {id: bob, roles: [buyer]}, pack_id: ` + pack + `, verb_key: browse, owner: bob}`
	}
	files["a.cases.yaml"] = "cases:\n  - name: plain\n    input: " + input("shop") + "\n    want: {code: allowed}\n" +
		"  - name: denied\n    input: " + input("shop") + "\n    ext: {deny: [frozen]}\n    want: {code: runtime_denied, reasons: [frozen]}\n"
	files["b.cases.yaml"] = "packs: [mall]\ngrants: [grants.json]\ncases:\n  - name: one pack\n    input: " + input("mall") + "\n    want: {code: allowed}\n"
	files["c.cases.yaml"] = "packs: [mall]\ngrants: [grants.json]\ncases:\n  - name: one pack, denied\n    input: " + input("mall") + "\n    ext: {deny: [closed]}\n    want: {code: runtime_denied}\n" +
		"cases:\n"[:0] + "  - name: the run's own set is not named here\n    input: " + input("shop") + "\n    want: {code: unknown_command}\n"
	treetest.Write(t, dir, files)
	t.Chdir(dir)
	found, err := discover.Discover([]string{"."})
	if err != nil {
		t.Fatal(err)
	}
	r, err := prepare(context.Background(), found, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	results, err := r.runCases(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 5 {
		t.Fatalf("%d results, want 5", len(results))
	}
	for _, res := range results {
		if res.Status != Pass {
			t.Errorf("%s: %s %v", res.Name, res.Message, res.Diffs)
		}
	}
	own := bundleKey(found.Packs, found.GrantFiles)
	if len(r.evals.bundles) != 1 || r.evals.bundles[own] == nil || len(r.evals.evals) != 1 || len(r.evals.evals[own]) != 1 || r.evals.evals[own][noLayer] == nil {
		t.Errorf("after the run: bundles %v, evaluators %v; want the run's own bundle and its evaluator without a layer", slices.Collect(maps.Keys(r.evals.bundles)), r.evals.evals)
	}
}
