package rego_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/treetest"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// readLayer writes module as a .rego file and prepares it as a Layer.
func readLayer(t *testing.T, module string) (*hcprego.Layer, string, error) {
	t.Helper()
	dir := t.TempDir()
	treetest.Write(t, dir, map[string]string{"layer.rego": module})
	path := filepath.Join(dir, "layer.rego")
	opts, err := hcprego.ReadExt([]string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := hcprego.NewLayer(context.Background(), opts)
	return l, path, err
}

// TestLayerValues: a layer evaluated alone gives data.hcp.ext.deny and
// data.hcp.ext.confirm for an input, a set as an array, and nil for a
// value that is undefined; it may read its own rules and other roots
// (a runtime's own data, undefined here).
func TestLayerValues(t *testing.T) {
	l, _, err := readLayer(t, `package hcp.ext

deny contains "blocked" if input.principal.id in data.hcp.ext.blocked
blocked := {"mallory"}
confirm contains "new device" if not data.runtime.devices[input.principal.id]
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id, deny, confirm string
	}{
		{"mallory", `["blocked"]`, `["new device"]`},
		{"ann", `[]`, `["new device"]`},
	} {
		deny, confirm, err := l.Values(context.Background(), map[string]any{"principal": map[string]any{"id": tt.id}})
		if err != nil {
			t.Fatal(err)
		}
		if got := mustJSON(t, deny) + " " + mustJSON(t, confirm); got != tt.deny+" "+tt.confirm {
			t.Errorf("%s: deny and confirm %s, want %s %s", tt.id, got, tt.deny, tt.confirm)
		}
	}
	none, _, _ := readLayer(t, "package hcp.ext\n\nother := 1\n")
	deny, confirm, err := none.Values(context.Background(), map[string]any{})
	if err != nil || deny != nil || confirm != nil {
		t.Errorf("no deny or confirm rule: %v %v %v, want nil nil nil", deny, confirm, err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestLayerRefusesPolicyReads: a rule that reads the policy's own data
// (which differs between two versions of the policy) is refused, naming
// the reference at its line and column.
func TestLayerRefusesPolicyReads(t *testing.T) {
	for _, tt := range []struct{ name, body, ref string }{
		{"the grant tables", `deny contains "x" if data.hcp_grants.roles`, "data.hcp_grants.roles"},
		{"the rows", `deny contains "x" if data.hcp_packs[input.pack_id]`, "data.hcp_packs[input.pack_id]"},
		{"the decision library", `deny contains "x" if data.hcp.authz.decision.allow`, "data.hcp.authz.decision.allow"},
		{"hcp whole", `deny contains "x" if data.hcp.something`, "data.hcp.something"},
		{"data whole", `deny contains "x" if walk(data, [_, 1])`, "data"},
		{"a computed root", `deny contains "x" if data[input.root]`, "data[input.root]"},
		{"an import", "import data.hcp_grants as g\n\ndeny contains \"x\" if g.slots", "data.hcp_grants"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, path, err := readLayer(t, "package hcp.ext\n\n"+tt.body+"\n")
			if err == nil {
				t.Fatal("the layer was read; want it refused")
			}
			want := tt.ref + " reads the policy's own data"
			if !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), want) {
				t.Errorf("error %q; want one at %s naming %q", err, path, want)
			}
		})
	}
}
