package rego_test

import (
	"path/filepath"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/reference"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// hostileGrants name subjects and tenants that hold what the grant tables'
// holder keys are made of: quotes, brackets and commas (the JSON text of
// [subject, tenant]), characters JSON escapes, and a name that reads like
// another subject's holder.
const hostileGrants = `{"version": 1, "grants": [
  {"subject": "principal:a\",\"acme", "pack_id": "alpha", "capabilities": ["verb.exec.read"]},
  {"subject": "principal:a", "tenant": "acme", "pack_id": "alpha", "verb_key": "read.brain.open", "capabilities": ["verb.exec.read"]},
  {"subject": "principal:[\"principal:b\",\"t\"]", "pack_id": "alpha", "capabilities": ["verb.exec.write"]},
  {"subject": "role:<&>\u2028", "tenant": "t\"]", "pack_id": "alpha", "capabilities": ["verb.exec.read", "sense.enable"]},
  {"subject": "role:x", "tenant": "[\"y\"]", "pack_id": "alpha", "capabilities": ["verb.exec.write"]},
  {"subject": "default", "tenant": "é", "pack_id": "alpha", "capabilities": ["verb.exec.read"]}
]}`

// TestHostileHolderNames decides every call of pack alpha for principals
// whose ids, tenants and roles are the hostile names, and names made to
// meet another subject's holder: the library and the Go reference agree,
// so no name reaches a grant that is not its own.
func TestHostileHolderNames(t *testing.T) {
	dir := t.TempDir()
	manifest, policy := alphaPack()
	treetest.Write(t, dir, map[string]string{
		"packs/alpha/manifest.json": manifest,
		"packs/alpha/policy.json":   policy,
		"grants.json":               hostileGrants,
	})
	m, err := compile.Checked([]string{filepath.Join(dir, "packs/alpha")}, []string{filepath.Join(dir, "grants.json")})
	if err != nil {
		t.Fatal(err)
	}
	p := newPair(t, m, "", reference.Ext{})
	principals := []map[string]any{
		{"id": `a","acme`}, {"id": "a"}, {"id": "a", "tenant": "acme"}, {"id": `a","acme`, "tenant": "acme"},
		{"id": `["principal:b","t"]`}, {"id": "b", "tenant": "t"}, {"id": `["principal:b","t"]`, "tenant": "t"},
		{"id": "u", "roles": []any{"<&>\u2028"}, "tenant": `t"]`}, {"id": "u", "roles": []any{"<&>\u2028"}},
		{"id": "u", "roles": []any{"x"}, "tenant": `["y"]`}, {"id": "u", "roles": []any{`x","["y"]`}},
		{"id": "u", "tenant": "é"}, {"id": "u", "tenant": "e\u0301"}, {"id": "default"}, {"id": "u", "roles": []any{"default"}},
	}
	allowed := 0
	for _, c := range calls(m) {
		for _, pr := range principals {
			in := reparse(gridInput(c, pr, "run", nil, nil, landFacts(pr)[0]))
			doc, diff := p.compare(in)
			if diff != "" {
				t.Fatalf("Rego and the reference disagree on %s:\n%s", jsonText(in), diff)
			}
			if doc["allow"] == true {
				allowed++
			}
		}
	}
	if allowed == 0 {
		t.Error("no call was allowed: the hostile grants gave nothing, so the test proves nothing")
	}
}
