package testrun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
)

// tenantShop is one pack, a grant file with a buyer's grants for tenant
// acme and a default grant to browse, and src/ holding them so that the
// runs below, which search tests/ only, decide with the bundles alone.
var tenantShop = map[string]string{
	"src/shop/manifest.json": shop["packs/shop/manifest.json"],
	"src/shop/policy.json":   shop["packs/shop/policy.json"],
	"src/grants.json": `{"grants": [
  {"subject": "role:buyer", "tenant": "acme", "pack_id": "shop", "capabilities": ["verb.exec.read", "verb.exec.write"]},
  {"subject": "default", "pack_id": "shop", "verb_key": "browse", "capabilities": ["verb.exec.read"]}
]}`,
}

// buildCell writes the sharded build of tenantShop into cell/ (4 shards)
// and returns acme's shard and another.
func buildCell(t *testing.T) (acme, other int) {
	t.Helper()
	_, err := compile.BuildShards(compile.BuildOptions{Packs: []string{"src/shop"}, Grants: []string{"src/grants.json"}, Output: "cell"}, 4)
	if err != nil {
		t.Fatal(err)
	}
	acme = compile.Shard("acme", 4)
	return acme, (acme + 1) % 4
}

// buyer is an input of a buyer of tenant acme on key, as YAML; of no
// tenant when tenant is "".
func buyer(tenant, key string) string {
	p := "{ id: b, roles: [buyer] }"
	if tenant != "" {
		p = "{ id: b, tenant: " + tenant + ", roles: [buyer] }"
	}
	return "{ principal: " + p + ", pack_id: shop, verb_key: " + key + ", owner: b }"
}

// TestCasesDecideWithShards decides case files with a sharded build as a
// sidecar loads it (docs/fleet.md): with the build's folder, a tenant's
// grants hold; with its shard left out, a principal of that tenant is
// denied tenant_unavailable, never given the default grant that its own
// grants, missing, would have kept from it; a principal of no tenant
// needs no shard. A bundles case that fails prints as any failing case
// does, and its sources are compared as the bundle names them. The
// bundle cases reach no row of the model (the run finds the pack in
// src/ too), since they judge the bundles, not it.
func TestCasesDecideWithShards(t *testing.T) {
	files := map[string]string{}
	for k, v := range tenantShop {
		files[k] = v
	}
	caseTree(t, files)
	_, other := buildCell(t)
	writeFile(t, "tests/cell.cases.yaml", "bundles: [../cell]\ncases:\n"+
		"  - name: acme's buyer browses\n    input: "+buyer("acme", "browse")+"\n    want: { code: allowed, source: { grant: src/grants.json:2 } }\n"+
		"  - name: acme's buyer asks to buy\n    input: "+buyer("acme", "buy")+"\n    want: { code: confirm_required }\n"+
		"  - name: a buyer of no tenant gets the default\n    input: "+buyer("", "browse")+"\n    want: { code: allowed, source: { grant: src/grants.json:3 } }\n"+
		"  - name: wrong on purpose\n    input: "+buyer("acme", "browse")+"\n    want: { code: capability_required }\n")
	writeFile(t, "tests/missing.cases.yaml", fmt.Sprintf("bundles: [../cell/hcp.tar.gz, ../cell/shard-%d.tar.gz]\ncases:\n", other)+
		"  - name: acme's shard is not loaded\n    input: "+buyer("acme", "browse")+"\n    want: { allow: false, code: tenant_unavailable, error: tenant unavailable }\n"+
		"  - name: no tenant, no shard needed\n    input: "+buyer("", "browse")+"\n    want: { code: allowed }\n")
	report, err := Run(context.Background(), Options{Paths: []string{"tests", "src"}, Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	lines := resultLines(report)
	want := []string{
		"pass tests/cell.cases.yaml:3 acme's buyer browses ",
		"pass tests/cell.cases.yaml:6 acme's buyer asks to buy ",
		"pass tests/cell.cases.yaml:9 a buyer of no tenant gets the default ",
		`fail tests/cell.cases.yaml:12 wrong on purpose code: want "capability_required", got "allowed"; decision: code "allowed"`,
		"pass tests/missing.cases.yaml:3 acme's shard is not loaded ",
		"pass tests/missing.cases.yaml:6 no tenant, no shard needed ",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("results\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	var out bytes.Buffer
	if err := report.WritePretty(&out); err != nil {
		t.Fatal(err)
	}
	failure := "FAIL tests/cell.cases.yaml:12: wrong on purpose\n" +
		"    code: want \"capability_required\", got \"allowed\"\n" +
		"    decision: code \"allowed\"\n"
	if !strings.Contains(out.String(), failure) {
		t.Errorf("pretty output\n%s\nwant it to hold\n%s", out.String(), failure)
	}
	if reached, total := report.Coverage.Units(); reached != 0 || total != 4 {
		t.Errorf("coverage: %d of %d units reached; want 0 of 4: cases decided with bundles judge no row of the model", reached, total)
	}
}

// TestCaseFileBundlesRefused holds a case file that names bundles to
// the rules of bad input: with packs or grants beside them, a shard
// without its policy bundle, a path that is not there, an empty list;
// each is named at its position and no test runs.
func TestCaseFileBundlesRefused(t *testing.T) {
	one := "cases:\n  - name: one\n    input: " + buyer("acme", "browse") + "\n    want: { code: allowed }\n"
	for _, tt := range []struct {
		name, file string
		want       []string
	}{
		{"packs and grants beside", "bundles: [../cell]\npacks: [../src/shop]\ngrants: [../src/grants.json]\n" + one, []string{
			"tests/x.cases.yaml:2:1: packs: a case file that names bundles decides with them as built, not with packs and grant files: leave out packs and grants, or bundles",
			"tests/x.cases.yaml:3:1: grants: a case file that names bundles",
		}},
		{"a shard alone", "bundles: [../cell/shard-0.tar.gz]\n" + one, []string{
			"tests/x.cases.yaml:1:1: bundles: no policy bundle: a shard holds grants alone",
		}},
		{"two policy bundles", "bundles: [../cell/hcp.tar.gz, ../copy.tar.gz]\n" + one, []string{
			"cell/hcp.tar.gz: bundle refused: detected overlapping roots in manifests for these bundles: [cell/hcp.tar.gz, copy.tar.gz]",
		}},
		{"no such path", "bundles: [../cell, ../nothing]\n" + one, []string{
			`tests/x.cases.yaml:1:20: bundles[1]: "../nothing": no such file or folder`,
		}},
		{"none", "bundles: []\n" + one, []string{
			"tests/x.cases.yaml:1:10: bundles",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"tests/x.cases.yaml": tt.file}
			for k, v := range tenantShop {
				files[k] = v
			}
			caseTree(t, files)
			buildCell(t)
			copyFile(t, "cell/hcp.tar.gz", "copy.tar.gz")
			report, err := Run(context.Background(), Options{Paths: []string{"tests"}})
			if err == nil {
				t.Fatalf("ran %d tests; want the case file refused", len(report.Results))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant it to hold %q", err, w)
				}
			}
		})
	}
}

// TestCaseBundlesAreReadAsEvalReadsThem refuses a bundle a sidecar would
// read otherwise as eval --bundle refuses it, here one over the limits
// the run was given, with the hint that says how to raise them.
func TestCaseBundlesAreReadAsEvalReadsThem(t *testing.T) {
	files := map[string]string{}
	for k, v := range tenantShop {
		files[k] = v
	}
	caseTree(t, files)
	buildCell(t)
	writeFile(t, "tests/x.cases.yaml", "bundles: [../cell]\ncases:\n  - name: one\n    input: "+buyer("acme", "browse")+"\n    want: { code: allowed }\n")
	_, err := Run(context.Background(), Options{Paths: []string{"tests"}, BundleLimits: bundles.LimitsOf(1 << 10), BundleHint: "raise them"})
	if err == nil || !strings.Contains(err.Error(), "tests/x.cases.yaml:1:1: bundles: cell/hcp.tar.gz: bundle refused: ") || !strings.Contains(err.Error(), "; raise them") {
		t.Errorf("a bundle over the limits: error %v; want it refused with the hint", err)
	}
	if _, err := Run(context.Background(), Options{Paths: []string{"tests"}}); err != nil {
		t.Errorf("within the default limits: %v", err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(data))
}
