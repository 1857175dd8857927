package explain

import (
	"path/filepath"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// Grants on one line share a file:line: the step names the one that gave
// the capability, not the first on the line, nor a default grant when a
// role grant turns defaults off.
func TestGrantOnASharedLine(t *testing.T) {
	dir := t.TempDir()
	treetest.Write(t, dir, map[string]string{
		"pay/manifest.json": `{"id": "pay", "commands": {"send": {}, "view": {}}}`,
		"pay/policy.json":   `{"surface_id": "pay", "verbs": {"send": {"operation": "write", "privacy": {"land": "personal"}}, "view": {"operation": "read", "privacy": {"land": "personal"}}}}`,
		"g.json": `{"grants": [
  {"subject": "role:reader", "pack_id": "pay", "capabilities": ["verb.exec.read"]}, {"subject": "default", "pack_id": "pay", "capabilities": ["verb.exec.write"]}, {"subject": "role:member", "pack_id": "pay", "capabilities": ["verb.exec.write"]}
]}`,
	})
	m, err := compile.Checked([]string{filepath.Join(dir, "pay")}, []string{filepath.Join(dir, "g.json")})
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.ToSlash(filepath.Join(dir, "g.json")) + ":2"
	c := readCall(decode(t, `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "pay", "verb_key": "send", "owner": "bob"}`))
	got := describeCapability(false, m, c, hcprego.DecisionOf(map[string]any{"capability": "verb.exec.write", "source": map[string]any{"grant": src}}))
	want := src + " gives verb.exec.write: role:member, pack pay, capabilities verb.exec.write"
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// A grant of the principal's on the pack that holds only for another
// tenant is listed with that reason when no grant gives the capability.
func TestGrantOfAnotherTenant(t *testing.T) {
	dir := t.TempDir()
	treetest.Write(t, dir, map[string]string{
		"pay/manifest.json": `{"id": "pay", "commands": {"send": {}}}`,
		"pay/policy.json":   `{"surface_id": "pay", "verbs": {"send": {"operation": "write", "privacy": {"land": "personal"}}}}`,
		"g.json": `{"grants": [
  {"subject": "role:member", "tenant": "acme", "pack_id": "pay", "capabilities": ["verb.exec.write"]}
]}`,
	})
	m, err := compile.Checked([]string{filepath.Join(dir, "pay")}, []string{filepath.Join(dir, "g.json")})
	if err != nil {
		t.Fatal(err)
	}
	c := readCall(decode(t, `{"principal": {"id": "bob", "roles": ["member"], "tenant": "other"}, "pack_id": "pay", "verb_key": "send", "owner": "bob"}`))
	got := describeCapability(true, m, c, hcprego.DecisionOf(map[string]any{"capability": "verb.exec.write"}))
	want := filepath.ToSlash(filepath.Join(dir, "g.json")) + `:2 does not count: it holds only for tenant "acme"`
	if len(got) != 3 || got[1] != want {
		t.Errorf("got %q\nwant %q second", got, want)
	}
}
