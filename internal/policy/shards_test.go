package policy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
)

// buildShards writes the example packs' sharded build of n shards to
// dir/name and returns the folder.
func buildShards(t *testing.T, dir, name string, n int) string {
	t.Helper()
	out := filepath.Join(dir, name)
	_, err := compile.BuildShards(compile.BuildOptions{
		Packs:  []string{testdata + "packs"},
		Grants: []string{testdata + "grants/acme.json"},
		Output: out,
	}, n)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// decide is the code of the decision for input under the policy s reads.
func decide(t *testing.T, s Source, input map[string]any) string {
	t.Helper()
	p, err := Read(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := p.Evaluator(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d, err := ev.Decide(context.Background(), input)
	if err != nil {
		t.Fatal(err)
	}
	return d.Decision.Code
}

// TestShardsReadAsASidecarLoadsThem reads a sharded build as a sidecar
// loads it: the folder, or the policy bundle with the shard of acme,
// decides acme's admin as the unsharded bundle does; without that shard,
// or with a shard of a build of another number, tenant_unavailable.
func TestShardsReadAsASidecarLoadsThem(t *testing.T) {
	dir := t.TempDir()
	four, eight := buildShards(t, dir, "four", 4), buildShards(t, dir, "eight", 8)
	unsharded := build(t, dir, "hcp.tar.gz", nil)
	input := map[string]any{
		"principal": map[string]any{"id": "bob", "roles": []any{"admin"}, "tenant": "acme"},
		"pack_id":   "mail", "verb_key": "mail.connect", "pack_reachable": true, "owner": "bob",
	}
	reader := BundleReader{Limits: bundles.DefaultLimits}
	want := decide(t, Source{Bundles: []string{unsharded}, Reader: reader}, input)
	if want == "tenant_unavailable" || want == "capability_required" {
		t.Fatalf("the unsharded bundle decides %s: the test needs acme's admin to hold a grant", want)
	}
	acme := compile.Shard("acme", 4) // 3
	policy := filepath.Join(four, bundles.PolicyFile)
	shard := func(folder string, k int) string { return filepath.Join(folder, bundles.ShardFile(k)) }
	for _, c := range []struct {
		name    string
		bundles []string
		want    string
	}{
		{"the folder", []string{four}, want},
		{"acme's shard", []string{policy, shard(four, acme)}, want},
		{"another shard", []string{policy, shard(four, (acme+1)%4)}, "tenant_unavailable"},
		{"no shard", []string{policy}, "tenant_unavailable"},
		{"acme's shard's number from a build of 8", []string{policy, shard(eight, acme)}, "tenant_unavailable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := decide(t, Source{Bundles: c.bundles, Reader: reader}, input); got != c.want {
				t.Errorf("decided %s, want %s", got, c.want)
			}
		})
	}
	noTenant := map[string]any{"principal": map[string]any{"id": "bob", "roles": []any{"member"}}, "pack_id": "ledger", "verb_key": "balance", "owner": "bob"}
	if got, want := decide(t, Source{Bundles: []string{policy}, Reader: reader}, noTenant), decide(t, Source{Bundles: []string{unsharded}, Reader: reader}, noTenant); got != want {
		t.Errorf("a principal without a tenant, no shard loaded: %s, want %s as unsharded", got, want)
	}
}

// TestShardsRefusedAsASidecarRefusesThem: shards without their policy
// bundle, a shard beside an unsharded bundle (roots overlap), and two
// copies of one shard are refused, as a sidecar refuses to load them.
func TestShardsRefusedAsASidecarRefusesThem(t *testing.T) {
	dir := t.TempDir()
	four := buildShards(t, dir, "four", 4)
	other := buildShards(t, dir, "other", 4)
	unsharded := build(t, dir, "hcp.tar.gz", nil)
	shard0 := filepath.Join(four, bundles.ShardFile(0))
	reader := BundleReader{Limits: bundles.DefaultLimits}
	for _, c := range []struct {
		name    string
		bundles []string
		words   string
	}{
		{"a shard alone", []string{shard0}, "no policy bundle"},
		{"beside an unsharded bundle", []string{unsharded, shard0}, "overlapping roots"},
		{"one shard twice", []string{filepath.Join(four, bundles.PolicyFile), shard0, filepath.Join(other, bundles.ShardFile(0))}, "overlapping roots"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(context.Background(), Source{Bundles: c.bundles, Reader: reader})
			if err == nil || !strings.Contains(err.Error(), c.words) {
				t.Errorf("error %v, want one saying %q", err, c.words)
			}
		})
	}
}

// TestShardBesideANewerPolicyBundle loads, as a sidecar polling each
// bundle on its own may hold them for a moment, the policy bundle of a
// build that gained a default grant beside a shard of the build before
// it. A principal whose own grant (in the shard) names it must not get
// what the default grant gives: neither build lets it. The shard carries
// the tables that say its principals are named (applies) even when no
// default grant reads them yet.
func TestShardBesideANewerPolicyBundle(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "own.json")
	if err := os.WriteFile(own, []byte(`{"grants": [{"subject": "principal:dana", "tenant": "acme", "pack_id": "workspace", "capabilities": ["verb.exec.read"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(name string, grants ...string) string {
		out := filepath.Join(dir, name)
		if _, err := compile.BuildShards(compile.BuildOptions{Packs: []string{testdata + "packs"}, Grants: grants, Output: out}, 4); err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := build("before", own)
	after := build("after", own, testdata+"grants/defaults.json")
	acme := bundles.ShardFile(compile.Shard("acme", 4))
	input := map[string]any{"principal": map[string]any{"id": "dana", "tenant": "acme"}, "pack_id": "mail", "verb_key": "mail.list", "owner": "dana"}
	reader := BundleReader{Limits: bundles.DefaultLimits}
	if got := decide(t, Source{Bundles: []string{after}, Reader: reader}, input); got != "capability_required" {
		t.Fatalf("the newer build decides %s; want capability_required (dana's own grant turns the default off)", got)
	}
	mixed := []string{filepath.Join(after, bundles.PolicyFile), filepath.Join(before, acme)}
	if got := decide(t, Source{Bundles: mixed, Reader: reader}, input); got != "capability_required" {
		t.Errorf("the newer policy bundle beside the older shard decides %s; want capability_required, as both builds do", got)
	}
}
