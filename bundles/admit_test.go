package bundles_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
	"github.com/hcp-rego/hcp-rego/internal/regolimit"
)

// The deployment the default limits admit (docs/bundles.md, "Reading
// limits"), and the sample that stands for it: as many grants a sample
// pack, a hundredth of the grants over a fiftieth of the packs, in as many
// grant files.
const (
	deployedGrants = 1_000_000
	deployedPacks  = 10_000
	sampleGrants   = deployedGrants / 100
	samplePacks    = deployedPacks / 50
	grantFiles     = 10
)

// TestDefaultLimitsAdmitTheDeployment builds samples of 10,000 grants
// over 200 packs of 50 commands, in 10 grant files, of two shapes
// (bench/largeset's, and 90% principal grants of one of 10,000 tenants on
// one command with 10% role grants on a pack), and checks that the
// bundle of 1,000,000 grants over 10,000 packs that each stands for is
// within the default limits. Each grant of a sample shares its slot with
// fewer others than in the deployment, so its data scaled up a
// hundredfold bounds the deployment's from above; the modules are one a
// pack, and scale with the packs.
func TestDefaultLimitsAdmitTheDeployment(t *testing.T) {
	for _, shape := range []string{"largeset", "tenants"} {
		t.Run(shape, func(t *testing.T) {
			need := deploymentNeeds(t, sampleBundle(t, shape))
			t.Logf("%s: a data.json of %d bytes, %d bytes and %d entries in all, %d values, %d terms", shape, need.file, need.total, need.entries, need.values, need.terms)
			lim := bundles.DefaultLimits
			if need.file > lim.FileBytes || need.total+need.entries*bundles.EntryBytes > lim.TotalBytes || need.values > lim.Values || need.terms > lim.Terms {
				t.Errorf("the default limits %+v refuse the deployment's bundle", lim)
			}
		})
	}
}

// sampleBundle builds the sample of shape and returns the bundle's bytes.
func sampleBundle(t *testing.T, shape string) []byte {
	t.Helper()
	dir := t.TempDir()
	set, err := largeset.Write(dir, largeset.Spec{Packs: samplePacks, Verbs: 50, Triggers: 2, Grants: sampleGrants, GrantFiles: grantFiles, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if shape == "tenants" {
		writeTenantGrants(t, set.GrantFiles)
	}
	return builtFrom(t, set.PackDirs, set.GrantFiles)
}

// writeTenantGrants replaces the grant files with sampleGrants grants of
// the shape: 90% principal grants of one of 10,000 tenants on one
// command, 10% role grants of a tenant on a pack.
func writeTenantGrants(t *testing.T, files []string) {
	t.Helper()
	n := 0
	for _, path := range files {
		var grants []map[string]any
		for range sampleGrants / len(files) {
			n++
			tenant := n * 7919 % 10_000
			g := map[string]any{"pack_id": largeset.PackID(n * 31 % samplePacks), "tenant": fmt.Sprintf("tenant-%05d", tenant)}
			if n%10 != 0 {
				g["subject"] = fmt.Sprintf("principal:user-%06d", tenant*20+n%20)
				g["verb_key"] = largeset.VerbKey(1 + n%49)
				g["capabilities"] = []string{"verb.exec.read", "verb.exec.write"}
			} else {
				g["subject"] = fmt.Sprintf("role:r%03d", n/10%200)
				g["capabilities"] = []string{"verb.exec.read"}
			}
			grants = append(grants, g)
		}
		text, err := json.MarshalIndent(map[string]any{"version": 1, "grants": grants}, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// needs is what a bundle takes of each limit: its largest file, its bytes
// and entries in all, the values of its JSON files and the terms of its
// modules.
type needs struct{ file, total, entries, values, terms int64 }

// deploymentNeeds scales what the sample bundle data takes up to the
// deployment: the packs' rows (data.hcp_packs) by the packs, every other
// JSON by the grants (a hundredfold, more than the packs' fiftyfold), and
// pack modules, in bundles that have them, by the packs.
func deploymentNeeds(t *testing.T, data []byte) needs {
	t.Helper()
	const byGrants, byPacks = deployedGrants / sampleGrants, deployedPacks / samplePacks
	var n needs
	_, entries := untar(t, data)
	for _, e := range entries {
		name, size := strings.TrimPrefix(e.hdr.Name, "/"), int64(len(e.body))
		switch {
		case name == "data.json":
			rows, rest := splitRows(t, e.body)
			size = byPacks*int64(len(rows)) + byGrants*int64(len(rest))
			n.values += byPacks*jsonValues(t, rows) + byGrants*jsonValues(t, rest)
			n.entries++
		case strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".manifest"):
			size *= byGrants
			n.values += byGrants * jsonValues(t, e.body)
			n.entries++
		case strings.HasPrefix(name, "hcp/packs/"):
			size *= byPacks
			terms, _ := regolimit.RegoTerms(e.body, math.MaxInt64)
			n.terms += byPacks * terms
			n.entries += byPacks
		default:
			terms, _ := regolimit.RegoTerms(e.body, math.MaxInt64)
			n.terms += terms
			n.entries++
		}
		n.file = max(n.file, size)
		n.total += size
	}
	return n
}

// splitRows splits a bundle's data.json into the JSON of its rows
// (hcp_packs) and that of the rest.
func splitRows(t *testing.T, text []byte) (rows, rest []byte) {
	t.Helper()
	var data map[string]json.RawMessage
	if err := json.Unmarshal(text, &data); err != nil {
		t.Fatal(err)
	}
	rows = data[bundles.PacksRoot]
	delete(data, bundles.PacksRoot)
	rest, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return rows, rest
}

// jsonValues counts the values and member names of a JSON text, as the
// bundle reader counts them.
func jsonValues(t *testing.T, text []byte) int64 {
	t.Helper()
	var n int64
	dec := jsontext.NewDecoder(bytes.NewReader(text))
	for {
		tok, err := dec.ReadToken()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		if k := tok.Kind(); k != '}' && k != ']' {
			n++
		}
	}
}
