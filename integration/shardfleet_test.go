package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/fleet"
)

// fleetShards is the number of shards of the sharded fleet's build.
const fleetShards = 4

// shardTenants picks, for each shard K of fleetShards, a tenant whose
// grants shard K holds (compile.Shard), the first of tenant-0,
// tenant-1, ... that falls there.
func shardTenants(t *testing.T) []string {
	t.Helper()
	tenants := make([]string, fleetShards)
	found := 0
	for i := 0; found < fleetShards && i < 1000; i++ {
		name := fmt.Sprintf("tenant-%d", i)
		if k := compile.Shard(name, fleetShards); tenants[k] == "" {
			tenants[k], found = name, found+1
		}
	}
	if found < fleetShards {
		t.Fatalf("no tenant for every shard of %d: %q", fleetShards, tenants)
	}
	return tenants
}

// writeShardGrants writes the grant file at path: members may read mail,
// whatever their tenant, and each tenant's user u-TENANT may read mail in
// its tenant, but for changed, whose grant, on the same line, lets it
// write instead; so a change moves no other grant.
func writeShardGrants(t *testing.T, path string, tenants []string, changed string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"version": 1, "grants": [` + "\n")
	b.WriteString(`{"subject": "role:member", "pack_id": "mail", "capabilities": ["verb.exec.read"]}`)
	for _, tenant := range tenants {
		capability := "verb.exec.read"
		if tenant == changed {
			capability = "verb.exec.write"
		}
		fmt.Fprintf(&b, ",\n"+`{"subject": "principal:u-%s", "tenant": %q, "pack_id": "mail", "capabilities": [%q]}`, tenant, tenant, capability)
	}
	b.WriteString("\n]}\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readerOf is an input of tenant's user reading its own mail; nobody's,
// with tenant "", is a member without a tenant.
func readerOf(tenant string) string {
	if tenant == "" {
		return `{"principal": {"id": "zed", "roles": ["member"]}, "pack_id": "mail", "verb_key": "mail.get", "owner": "zed"}`
	}
	return fmt.Sprintf(`{"principal": {"id": "u-%s", "tenant": %q}, "pack_id": "mail", "verb_key": "mail.get", "owner": "u-%s"}`, tenant, tenant, tenant)
}

// cellConfig is the OPA configuration of a cell: it polls, every second
// from the registry at addr, the policy bundle "hcp" at ref and the
// bundle "shard-K" at ref's tag with -shard-K for each K of shards (the
// names and references push DIR gives), each signed as key id "hcp"; its
// status plugin is on.
func cellConfig(t *testing.T, addr, ref string, shards []int) string {
	t.Helper()
	bundle := func(resource string) map[string]any {
		return map[string]any{
			"service":  "registry",
			"resource": resource,
			"polling":  map[string]any{"min_delay_seconds": 1, "max_delay_seconds": 1},
			"signing":  map[string]any{"keyid": "hcp"},
		}
	}
	bundles := map[string]any{"hcp": bundle(ref)}
	for _, k := range shards {
		bundles[fmt.Sprintf("shard-%d", k)] = bundle(fmt.Sprintf("%s-shard-%d", ref, k))
	}
	config := map[string]any{
		"services": map[string]any{"registry": map[string]any{"url": "http://" + addr, "type": "oci"}},
		"bundles":  bundles,
		"keys":     map[string]any{"hcp": map[string]any{"algorithm": "RS256", "key": string(readFile(t, keys+"rsa.pub"))}},
		"status":   map[string]any{"console": true},
	}
	data, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "opa.json", data)
}

// cell is one sidecar of the sharded fleet and the shards it loads.
type cell struct {
	name   string
	shards []int
	opa    *server
}

// bundleNames are the bundles the cell loads: hcp and its shards.
func (c cell) bundleNames() []string {
	names := []string{"hcp"}
	for _, k := range c.shards {
		names = append(names, fmt.Sprintf("shard-%d", k))
	}
	return names
}

// holds reports whether the cell loads shard k.
func (c cell) holds(k int) bool {
	for _, s := range c.shards {
		if s == k {
			return true
		}
	}
	return false
}

// pushedBundle is one line of push DIR: name, reference, digest, revision.
type pushedBundle struct{ name, ref, digest, revision string }

// pushShards pushes the folder dir to ref and returns its lines by name.
func pushShards(t *testing.T, docker, dir, ref string) map[string]pushedBundle {
	t.Helper()
	out := hcpRego(t, docker, "push", dir, ref, "--plain-http").must(t, "push "+dir)
	lines := map[string]pushedBundle{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Fatalf("push printed %q, want NAME REF DIGEST REVISION", line)
		}
		lines[f[0]] = pushedBundle{f[0], f[1], f[2], f[3]}
	}
	if len(lines) != fleetShards+1 {
		t.Fatalf("push printed %d bundles, want %d:\n%s", len(lines), fleetShards+1, out)
	}
	return lines
}

// cellStatus runs status on the cell's sidecar about its bundles, each
// wanted at the revision pushed, --wait 40s; once converged it asks again
// until every row comes from the status plugin, which learns of an
// activation a moment after the data API shows it (statusFromPlugin).
// The asking is bounded in count.
func cellStatus(t *testing.T, c cell, pushed map[string]pushedBundle) fleet.Reports {
	t.Helper()
	args := []string{"status", "--format", "json", c.opa.url}
	for _, name := range c.bundleNames() {
		args = append(args, "--bundle", name, "--want-revision", name+"="+pushed[name].revision)
	}
	var report fleet.Reports
	for i := range 40 {
		wait := "0s"
		if i == 0 {
			wait = "40s"
		}
		res := hcpRego(t, t.TempDir(), append(args, "--wait", wait)...)
		report = fleet.Reports{}
		if err := json.Unmarshal([]byte(res.stdout), &report); err != nil {
			t.Fatalf("status printed no report (exit %d): %v\n%s%s", res.code, err, res.stdout, res.stderr)
		}
		if res.code != 0 || !report.Converged {
			t.Fatalf("cell %s: status %s: exit %d\n%s%s", c.name, strings.Join(args, " "), res.code, res.stdout, res.stderr)
		}
		if fromPlugin(report) {
			return report
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("cell %s: the status plugin never reported every bundle:\n%+v", c.name, report)
	return report
}

// fromPlugin reports whether every row of r comes from the status plugin
// and names an activation.
func fromPlugin(r fleet.Reports) bool {
	for _, b := range r.Bundles {
		for _, s := range b.Sidecars {
			if s.Source != "status" || s.LastActivation == "" {
				return false
			}
		}
	}
	return true
}

// unsharded is the decision of the unsharded build of the packs and the
// grant file, as hcp-rego eval gives it (the embedded evaluator, which
// the differential tests hold to OPA's).
func unsharded(t *testing.T, grants, input string) any {
	t.Helper()
	in := writeFile(t, "input.json", []byte(input))
	out := hcpRego(t, t.TempDir(), "eval", packs, "--grants", grants, "--input", in).must(t, "eval "+input)
	return decode(t, out)
}

// checkDecisions holds every cell to docs/fleet.md: a tenant whose shard the
// cell loads, and a principal without a tenant, are decided as the
// unsharded build decides them; a tenant of another shard is denied
// tenant_unavailable.
func checkDecisions(t *testing.T, cells []cell, tenants []string, grants, when string) {
	t.Helper()
	want := map[string]any{"": unsharded(t, grants, readerOf(""))}
	for _, tenant := range tenants {
		want[tenant] = unsharded(t, grants, readerOf(tenant))
	}
	for _, c := range cells {
		if got := c.opa.query(t, "hcp/authz/decision", decode(t, readerOf(""))); !reflect.DeepEqual(got, want[""]) {
			t.Errorf("%s, cell %s, a member without a tenant: %v, want the unsharded decision %v", when, c.name, got, want[""])
		}
		for k, tenant := range tenants {
			got := c.opa.query(t, "hcp/authz/decision", decode(t, readerOf(tenant)))
			if c.holds(k) && !reflect.DeepEqual(got, want[tenant]) {
				t.Errorf("%s, cell %s, %s of shard %d: %v, want the unsharded decision %v", when, c.name, tenant, k, got, want[tenant])
			}
			if code, _ := got.(map[string]any)["code"].(string); !c.holds(k) && code != "tenant_unavailable" {
				t.Errorf("%s, cell %s, %s of shard %d, not loaded here: %v, want tenant_unavailable", when, c.name, tenant, k, got)
			}
		}
	}
}

// TestShardedFleet runs docs/fleet.md (tenant shards, and their push,
// pull and status) with the real registry and three real OPA sidecars:
// a signed build of 4 shards pushed as a folder;
// cell a loading the policy bundle with shards 0 and 1, cell b with
// shards 2 and 3, and one with all. Each decides as the unsharded build
// for the tenants it holds and tenant_unavailable for the others. Then
// one tenant's grant changes, in place, and the folder is rebuilt and
// pushed: only that tenant's shard has a new digest, only the sidecars
// holding it activate a new revision, and the others, having polled
// since, keep every activation as it was.
func TestShardedFleet(t *testing.T) {
	t.Parallel()
	reg := startRegistry(t, false)
	docker := dockerConfig(t, reg.addr, "", "")
	ref := reg.addr + "/policy/hcp:prod"
	work := t.TempDir()
	grants, dir := filepath.Join(work, "grants.json"), filepath.Join(work, "shards")
	tenants := shardTenants(t)
	build := func(changed string) map[string]pushedBundle {
		writeShardGrants(t, grants, tenants, changed)
		hcpRego(t, docker, "build", packs, "--grants", grants, "--shards", fmt.Sprint(fleetShards), "-o", dir,
			"--signing-key", keys+"rsa.key", "--signing-key-id", "hcp").must(t, "build --shards")
		return pushShards(t, docker, dir, ref)
	}
	first := build("")
	for name, p := range first {
		want := ref + "-" + name // REPO:TAG-shard-K
		if name == "hcp" {
			want = ref
		}
		if p.ref != want {
			t.Errorf("%s pushed to %s, want %s", name, p.ref, want)
		}
	}

	cells := []cell{{name: "a", shards: []int{0, 1}}, {name: "b", shards: []int{2, 3}}, {name: "all", shards: []int{0, 1, 2, 3}}}
	for i := range cells {
		cells[i].opa = startOPA(t, "--config-file", cellConfig(t, reg.addr, ref, cells[i].shards))
	}
	// A cell of shards 0 and 1 with docs/fleet.md's configuration as it
	// is; it polls at OPA's default delay, so it runs the first build only.
	doc := cell{name: "docs/fleet.md", shards: []int{0, 1}}
	doc.opa = startOPAWith(t, opaProcess{env: []string{"HCP_REGISTRY_URL=http://" + reg.addr, "HCP_BUNDLE_REF=" + ref}},
		"--config-file", writeFile(t, "cell.yaml", []byte(docBlocks(t, "../docs/fleet.md", "<!-- cell-config:")[0])),
		"--set-file", "keys.hcp.key="+keys+"rsa.pub")
	before := map[string]map[string]opaBundle{}
	for _, c := range append(cells, doc) {
		cellStatus(t, c, first)
		before[c.name] = opaStatus(t, c.opa)
	}
	checkDecisions(t, append(cells, doc), tenants, grants, "first build")

	// One tenant of shard 1 gets another capability: only shard-1's
	// bytes, digest and revision change.
	changed := tenants[1]
	second := build(changed)
	for name, p := range second {
		if moved := p.digest != first[name].digest || p.revision != first[name].revision; moved != (name == "shard-1") {
			t.Errorf("after %s's grant changed, %s moved %v: %+v, was %+v", changed, name, moved, p, first[name])
		}
	}
	// Each cell runs the revisions pushed (status --want-revision of
	// each), b those it ran: b never asked for shard 1. To show that b
	// keeps them, and every sidecar its other bundles, rather than not
	// yet having looked, each must have polled the registry since the
	// push: every bundle's last successful request moves twice. Then
	// only shard-1 was activated again, by OPA's own activation times.
	for _, c := range cells {
		cellStatus(t, c, second)
		waitPolled(t, c.opa, c.bundleNames())
		cellStatus(t, c, second)
		now := opaStatus(t, c.opa)
		for _, name := range c.bundleNames() {
			was, is := before[c.name][name].LastSuccessfulActivation, now[name].LastSuccessfulActivation
			if again := is != was; again != (name == "shard-1") {
				t.Errorf("cell %s, bundle %s: activated again %v (last activation %s, was %s); want only shard-1 activated again", c.name, name, again, is, was)
			}
		}
	}
	checkDecisions(t, cells, tenants, grants, "after "+changed+"'s grant changed")
	if code := cells[0].opa.code(t, readerOf(changed)); code != "capability_required" {
		t.Errorf("cell a, %s after its grant changed to write: %s, want capability_required", changed, code)
	}
}

// opaBundle is a bundle's entry in OPA's own /v1/status, its times as
// OPA writes them (to the nanosecond: hcp-rego status shows seconds).
type opaBundle struct {
	LastSuccessfulRequest    string `json:"last_successful_request"`
	LastSuccessfulActivation string `json:"last_successful_activation"`
}

// opaStatus is what the sidecar's status plugin says of each bundle.
func opaStatus(t *testing.T, s *server) map[string]opaBundle {
	t.Helper()
	resp, err := http.Get(s.url + "/v1/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Result struct {
			Bundles map[string]opaBundle `json:"bundles"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatalf("GET /v1/status: %v", err)
	}
	return doc.Result.Bundles
}

// waitPolled waits until each bundle of names has had two successful
// requests since it is called, as the sidecar's status plugin reports
// them: the second began after the call. The wait is bounded.
func waitPolled(t *testing.T, s *server, names []string) {
	t.Helper()
	moved := map[string]int{}
	last := opaStatus(t, s)
	s.waitFor(t, "two polls of every bundle", convergeTimeout, func() bool {
		now := opaStatus(t, s)
		done := true
		for _, name := range names {
			if now[name].LastSuccessfulRequest != last[name].LastSuccessfulRequest {
				moved[name]++
			}
			done = done && moved[name] >= 2
		}
		last = now
		return done
	})
}
