package largeset_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
)

// TestIdPShape checks the IdP set's mix (90% principal grants of one
// tenant on one command, 10% role grants of one tenant on a pack, over
// the tenants asked for), that it is the same from the same seed, and
// that it compiles.
func TestIdPShape(t *testing.T) {
	spec := largeset.Spec{Packs: 20, Verbs: 10, Triggers: 1, Grants: 5000, GrantFiles: 2, Seed: 7, Shape: largeset.IdP, Tenants: 40}
	a, err := largeset.Write(t.TempDir(), spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := largeset.Write(t.TempDir(), spec)
	if err != nil {
		t.Fatal(err)
	}
	var principals, roles int
	tenants := map[string]bool{}
	for i, path := range a.GrantFiles {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		other, err := os.ReadFile(b.GrantFiles[i])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, other) {
			t.Errorf("%s: two sets from one seed differ", filepath.Base(path))
		}
		var file struct {
			Grants []map[string]any `json:"grants"`
		}
		if err := json.Unmarshal(data, &file); err != nil {
			t.Fatal(err)
		}
		for _, g := range file.Grants {
			tenant, _ := g["tenant"].(string)
			switch _, verb := g["verb_key"]; {
			case g["subject"] == "role:bench":
				continue
			case tenant == "":
				t.Errorf("grant without a tenant: %v", g)
			case verb:
				principals++
			default:
				roles++
			}
			tenants[tenant] = true
		}
	}
	if principals+roles != spec.Grants-len(largeset.BenchGrants) {
		t.Errorf("%d grants, want %d", principals+roles, spec.Grants-len(largeset.BenchGrants))
	}
	if share := float64(roles) / float64(principals+roles); share < 0.08 || share > 0.12 {
		t.Errorf("role grants are %.3f of the set, want about 0.1", share)
	}
	if len(tenants) != spec.Tenants {
		t.Errorf("%d tenants, want %d", len(tenants), spec.Tenants)
	}
	if _, err := compile.Checked(a.PackDirs, a.GrantFiles); err != nil {
		t.Fatal(err)
	}
}
