package testrun

import (
	"strings"
	"testing"

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
	e := newEvaluators()
	if _, err := e.bundle([]string{"shop"}, []string{"grants.json"}); err != nil {
		t.Errorf("a grant on a pack outside the set: %v", err)
	}
	_, err := e.bundle([]string{"bad"}, nil)
	if err == nil || !strings.Contains(err.Error(), `verb "buy" missing from policy.json`) {
		t.Errorf("a pack lint rejects: %v, want its finding", err)
	}
}
