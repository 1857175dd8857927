package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/policy"
	"github.com/hcp-rego/hcp-rego/internal/reference"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// tenantGrants give tenants spread over the shards of a build of 4 (docs/fleet.md):
// grants of every shape, beside acme.json (tenant acme) and
// defaults.json (default grants without a tenant): a role's, a
// principal's on one command, default grants with a tenant, and a
// principal (olga, bea) whose own grant turns default grants off for it,
// so that a sidecar without its shard would, if it judged, let the
// defaults hold: wider.
const tenantGrants = `{
  "version": 1,
  "grants": [
    { "subject": "role:member", "tenant": "initech", "pack_id": "ledger", "capabilities": ["verb.exec.read", "verb.exec.write"] },
    { "subject": "principal:olga", "tenant": "other", "pack_id": "mail", "verb_key": "mail.send", "capabilities": ["verb.exec.write"] },
    { "subject": "default", "tenant": "日本", "pack_id": "ledger", "capabilities": ["verb.exec.write", "sense.enable"] },
    { "subject": "role:admin", "tenant": "globex", "pack_id": "workspace", "capabilities": ["verb.exec.read", "verb.exec.write"] },
    { "subject": "principal:bea", "tenant": "beta", "pack_id": "ledger", "verb_key": "transfer", "capabilities": ["verb.exec.write"] },
    { "subject": "default", "tenant": "beta", "pack_id": "workspace", "stimulus": "file_changed", "capabilities": ["sense.enable"] },
    { "subject": "role:dev", "tenant": "t4", "pack_id": "mail", "capabilities": ["pack.connect"] }
  ]
}`

// shardCorpusTenants are the principals' tenants: each tenant of the
// grants, one no grant names, the empty one; and "-", no tenant member.
var shardCorpusTenants = []string{"acme", "globex", "initech", "t4", "beta", "other", "日本", "nobody-here", "stranger", "", "-"}

// shardSubjects are the principals, by id and roles.
var shardSubjects = []map[string]any{
	{"id": "ann", "roles": []any{"admin"}},
	{"id": "bob", "roles": []any{"member"}},
	{"id": "olga"},
	{"id": "bea"},
	{"id": "dev1", "roles": []any{"dev", "member"}},
	{"id": "zed"},
}

// shardCalls are the calls of the corpus: a key of each pack, each
// kind, and their land facts.
var shardCalls = []map[string]any{
	{"pack_id": "ledger", "verb_key": "balance"},
	{"pack_id": "ledger", "verb_key": "transfer", "args": map[string]any{"amount": "2.80", "payee": "demo-transit"}, "confirm": true},
	{"pack_id": "ledger", "verb_key": "connect"},
	{"pack_id": "ledger", "stimulus": "payment_received"},
	{"pack_id": "mail", "verb_key": "mail.list"},
	{"pack_id": "mail", "verb_key": "mail.send", "access": map[string]any{"mode": "run"}},
	{"pack_id": "mail", "verb_key": "mail.connect"},
	{"pack_id": "mail", "verb_key": "notes.create"},
	{"pack_id": "workspace", "verb_key": "files.write"},
	{"pack_id": "workspace", "stimulus": "file_changed"},
	{"pack_id": "ledger", "verb_key": "balance", "pack_reachable": false},
}

// principalOf is subject's principal of tenant ("-": none).
func principalOf(subject map[string]any, tenant string) map[string]any {
	p := map[string]any{"projects": []any{"p-1"}}
	for k, v := range subject {
		p[k] = v
	}
	if tenant != "-" {
		p["tenant"] = tenant
	}
	return p
}

// shardInput is a call of the corpus by p, with every land fact holding.
func shardInput(t *testing.T, p map[string]any, c map[string]any) any {
	in := map[string]any{"principal": p, "owner": p["id"], "project_id": "p-1",
		"workspace": map[string]any{"root": "/home/w", "paths": []any{"/home/w/a.txt"}}}
	for k, v := range c {
		in[k] = v
	}
	data, _ := json.Marshal(in)
	return decode(t, string(data))
}

// tenantShards is what `hcp-rego shard --shards n --format json` says of
// the tenants: each one's shard.
func tenantShards(t *testing.T, docker string, n int, tenants []string) map[string]int {
	t.Helper()
	out := hcpRego(t, docker, append([]string{"shard", "--shards", fmt.Sprint(n), "--format", "json"}, tenants...)...).must(t, "hcp-rego shard")
	var doc struct {
		Shards  int
		Tenants map[string]int
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Shards != n || len(doc.Tenants) != len(tenants) {
		t.Fatalf("hcp-rego shard printed %s (%v)", out, err)
	}
	return doc.Tenants
}

// TestShardedSidecar builds the example packs with acme.json,
// defaults.json and tenantGrants into 4 shards, into 3, and unsharded,
// with hcp-rego build, and starts three real OPA sidecars: one with the
// policy bundle of 4, two of its shards (those of tenants other and
// initech), and shard K of the build of 8 (K the shard of 4 of tenant
// acme, which the sidecar does not load); one with the unsharded bundle;
// one with the policy bundle and every shard. Over a corpus of calls by
// principals of each tenant, of none, of an unknown and of the empty
// tenant, and their listings:
//   - the first sidecar answers as `hcp-rego eval --bundle` on the same
//     bundles (the embedded evaluator as eval reads them, and the CLI on
//     some calls) and as the Go reference told which shards it holds;
//   - where the principal's tenant's shard is loaded or it has none, it
//     answers as the unsharded sidecar, source.grant included;
//   - where the shard is missing (beta's) or is the build of 8's (acme's),
//     it answers tenant_unavailable with its GPARS -32002 error;
//   - the sidecar with every shard answers as the unsharded one, always.
func TestShardedSidecar(t *testing.T) {
	t.Parallel()
	docker, work := t.TempDir(), t.TempDir()
	grants := filepath.Join(work, "tenants.json")
	if err := os.WriteFile(grants, []byte(tenantGrants), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := []string{packs, "--grants", acme, "--grants", defaults, "--grants", grants}
	build := func(out string, extra ...string) {
		hcpRego(t, docker, append(append([]string{"build"}, inputs...), append(extra, "-o", out)...)...).must(t, "hcp-rego build "+strings.Join(extra, " "))
	}
	four, eight, unsharded := filepath.Join(work, "four"), filepath.Join(work, "eight"), filepath.Join(work, "hcp.tar.gz")
	build(four, "--shards", "4")
	build(eight, "--shards", "8")
	build(unsharded)

	of := tenantShards(t, docker, 4, shardCorpusTenants[:len(shardCorpusTenants)-2])
	loaded := []int{of["other"], of["initech"]}
	foreign, missing := of["acme"], of["beta"]
	if slices.Contains(loaded, foreign) || slices.Contains(loaded, missing) || foreign == missing || loaded[0] == loaded[1] || foreign >= 8 {
		t.Fatalf("the tenants' shards %v do not make the cell this test needs", of)
	}
	cell := []string{filepath.Join(four, bundles.PolicyFile)}
	for _, k := range loaded {
		cell = append(cell, filepath.Join(four, bundles.ShardFile(k)))
	}
	cell = append(cell, filepath.Join(eight, bundles.ShardFile(foreign)))
	all := []string{filepath.Join(four, bundles.PolicyFile)}
	for k := range 4 {
		all = append(all, filepath.Join(four, bundles.ShardFile(k)))
	}
	sidecars := map[string]*server{
		"cell":      startOPA(t, bundleArgs(cell)...),
		"unsharded": startOPA(t, "--bundle", unsharded),
		"all":       startOPA(t, bundleArgs(all)...),
	}
	for _, s := range sidecars {
		s.waitHealthy(t)
	}
	embedded := sidecarEvaluator(t, cell)
	m := exampleModel(t, acme, defaults, grants)
	holds := reference.Shards{Of: 4, Loaded: map[int]int{loaded[0]: 4, loaded[1]: 4, foreign: 3}}
	ref := reference.New(m.Packs(), m.Grants()).WithShards(holds)

	seen := map[string]int{}
	for _, tenant := range shardCorpusTenants {
		here := tenant == "" || tenant == "-" || slices.Contains(loaded, shardOf(of, tenant))
		for i, subject := range shardSubjects {
			p := principalOf(subject, tenant)
			for j, c := range shardCalls {
				in := shardInput(t, p, c)
				cli := i == 0 && j == 0 // one call a tenant also through the CLI
				class := checkShardCall(t, sidecars, embedded, ref, cell, in, here, cli)
				seen[class]++
			}
			for _, pack := range []string{"ledger", "mail", "workspace"} {
				checkShardListing(t, sidecars, embedded, ref, shardInput(t, p, map[string]any{"pack_id": pack}), here)
			}
		}
	}
	t.Logf("calls by class: %v", seen)
	for _, class := range []string{"here allowed", "here by a tenant's grant", "here capability_required", "away tenant_unavailable", "away pack_unavailable"} {
		if seen[class] == 0 {
			t.Errorf("the corpus reached no %q: %v", class, seen)
		}
	}
}

// shardOf is tenant's shard among 4 as hcp-rego shard printed it; -1 for
// a tenant that names none.
func shardOf(of map[string]int, tenant string) int {
	if k, ok := of[tenant]; ok {
		return k
	}
	return -1
}

// bundleArgs are OPA's --bundle flags for paths.
func bundleArgs(paths []string) []string {
	var args []string
	for _, p := range paths {
		args = append(args, "--bundle", p)
	}
	return args
}

// sidecarEvaluator is the embedded evaluator of `hcp-rego eval --bundle`
// given paths: the bundles read and merged as eval reads them.
func sidecarEvaluator(t *testing.T, paths []string) *hcprego.Evaluator {
	t.Helper()
	p, err := policy.Read(context.Background(), policy.Source{Bundles: paths, Reader: policy.BundleReader{Limits: bundles.DefaultLimits}})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := p.Evaluator(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// checkShardCall asks every sidecar for in's decision and GPARS error and
// holds them to one another as TestShardedSidecar says; here says whether
// the principal's tenant's grants are in the cell. It returns the
// call's class for the tally: "here" or "away" and the cell's code, and
// "here by a tenant's grant" for a grant of tenants.json.
func checkShardCall(t *testing.T, sidecars map[string]*server, embedded *hcprego.Evaluator, ref *reference.Evaluator, cell []string, in any, here, cli bool) string {
	t.Helper()
	answers := map[string][2]any{}
	for name, s := range sidecars {
		answers[name] = [2]any{normal(s.query(t, "hcp/authz/decision", in)), normal(s.query(t, "hcp/authz/gpars_error", in))}
	}
	res, err := embedded.Decide(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	answers["embedded"] = [2]any{normal(res.Decision.Doc), normal(res.GPARSError)}
	want := ref.Decide(in, reference.Ext{})
	answers["reference"] = [2]any{normal(want), normal(reference.GPARSError(want))}
	if cli {
		answers["eval CLI"] = [2]any{normal(evalCLI(t, cell, in)), answers["cell"][1]} // eval prints the decision alone
	}
	for _, who := range []string{"embedded", "reference", "eval CLI"} {
		if a, ok := answers[who]; ok && !reflect.DeepEqual(answers["cell"], a) {
			t.Errorf("%s: the cell's sidecar and %s differ\n     cell: %s\n%9s: %s", text(in), who, text(answers["cell"]), who, text(a))
		}
	}
	if !reflect.DeepEqual(answers["all"], answers["unsharded"]) {
		t.Errorf("%s: the sidecar with every shard and the unsharded one differ\n      all: %s\nunsharded: %s", text(in), text(answers["all"]), text(answers["unsharded"]))
	}
	doc, _ := answers["cell"][0].(map[string]any)
	code, _ := doc["code"].(string)
	switch {
	case here && !reflect.DeepEqual(answers["cell"], answers["unsharded"]):
		t.Errorf("%s: the tenant's grants are in the cell, and it answers otherwise than the unsharded sidecar\n     cell: %s\nunsharded: %s", text(in), text(answers["cell"]), text(answers["unsharded"]))
	case !here && code != "tenant_unavailable" && code != "pack_unavailable":
		t.Errorf("%s: the tenant's shard is not in the cell, and it answers %s", text(in), text(answers["cell"][0]))
	case code == "tenant_unavailable":
		gpars := normal(map[string]any{"code": -32002, "message": "Authorization for this request is not available here.", "data": map[string]any{"gpars_code": "SERVER_UNAVAILABLE"}})
		source, _ := doc["source"].(map[string]any)
		if !reflect.DeepEqual(answers["cell"][1], gpars) || source["grant"] != nil || doc["allow"] != false {
			t.Errorf("%s: tenant_unavailable with gpars_error %s, source %s", text(in), text(answers["cell"][1]), text(source))
		}
	}
	class := "away "
	if here {
		class = "here "
		source, _ := doc["source"].(map[string]any)
		if grant, _ := source["grant"].(string); strings.Contains(grant, "tenants.json:") {
			return "here by a tenant's grant"
		}
	}
	return class + code
}

// checkShardListing asks every sidecar for in's listing: the cell's
// equals the embedded evaluator's and the reference's, and, when the
// tenant's grants are in it, the unsharded sidecar's; otherwise every
// entry is tenant_unavailable. The sidecar with every shard lists as the
// unsharded one.
func checkShardListing(t *testing.T, sidecars map[string]*server, embedded *hcprego.Evaluator, ref *reference.Evaluator, in any, here bool) {
	t.Helper()
	got := map[string]any{}
	for name, s := range sidecars {
		got[name] = normal(s.query(t, "hcp/authz/permissions", in))
	}
	res, err := embedded.Permissions(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	got["embedded"], got["reference"] = normal(res.Doc), normal(ref.Permissions(in, reference.Ext{}))
	for _, who := range []string{"embedded", "reference"} {
		if !reflect.DeepEqual(got["cell"], got[who]) {
			t.Errorf("listing %s: the cell's sidecar and %s differ\n     cell: %s\n%9s: %s", text(in), who, text(got["cell"]), who, text(got[who]))
		}
	}
	if !reflect.DeepEqual(got["all"], got["unsharded"]) {
		t.Errorf("listing %s: the sidecar with every shard and the unsharded one differ", text(in))
	}
	if here {
		if !reflect.DeepEqual(got["cell"], got["unsharded"]) {
			t.Errorf("listing %s: the cell lists otherwise than the unsharded sidecar\n     cell: %s\nunsharded: %s", text(in), text(got["cell"]), text(got["unsharded"]))
		}
		return
	}
	listing, _ := got["cell"].(map[string]any)
	for _, field := range []string{"verbs", "stimuli"} {
		entries, _ := listing[field].(map[string]any)
		for key, e := range entries {
			if code := e.(map[string]any)["code"]; code != "tenant_unavailable" {
				t.Errorf("listing %s: %s.%s is %v, want tenant_unavailable", text(in), field, key, code)
			}
		}
	}
}

// evalCLI is what `hcp-rego eval --bundle ...` prints for input.
func evalCLI(t *testing.T, bundlePaths []string, input any) any {
	t.Helper()
	data, _ := json.Marshal(input)
	path := writeFile(t, "input.json", data)
	args := []string{"eval", "--input", path}
	for _, b := range bundlePaths {
		args = append(args, "--bundle", b)
	}
	return decode(t, hcpRego(t, t.TempDir(), args...).must(t, "hcp-rego eval"))
}
