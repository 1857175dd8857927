package matrix

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/policy"
)

var exampleGrants = []string{"../../testdata/grants/acme.json", "../../testdata/grants/defaults.json"}

// buildExamples writes the example packs and grants as one bundle and as
// a sharded build of 4, and returns the bundle's path and the folder's.
func buildExamples(t *testing.T) (file, folder string) {
	t.Helper()
	dir := t.TempDir()
	file, folder = filepath.Join(dir, "hcp.tar.gz"), filepath.Join(dir, "cell")
	o := compile.BuildOptions{Packs: []string{"../../testdata/packs"}, Grants: exampleGrants, Output: file}
	if _, err := compile.Build(o); err != nil {
		t.Fatal(err)
	}
	o.Output = folder
	if _, err := compile.BuildShards(o, 4); err != nil {
		t.Fatal(err)
	}
	return file, folder
}

// computeBundles reads the bundles as eval --bundle reads them and
// computes their matrix.
func computeBundles(t *testing.T, names []string, o Options) *Matrix {
	t.Helper()
	ctx := context.Background()
	p, err := policy.Read(ctx, policy.Source{Bundles: names, Reader: policy.BundleReader{Limits: bundles.DefaultLimits}})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := p.Evaluator(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mx, err := ComputeBundle(ctx, p.Bundle, ev, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(mx.Anomalies) > 0 {
		t.Fatalf("anomalies: %v", mx.Anomalies)
	}
	return mx
}

// TestBundleMatrixIsTheModels holds the matrix of bundles as built to the
// matrix of the packs and grant files they were built from: the same
// subjects in the same order, rows and cells, for a principal of no
// tenant, of a tenant with grants, and of one without, from one bundle
// and from a sharded build's folder. role:admin's grants are all for
// tenant acme, so a sharded build holds them in acme's shard alone: a
// matrix that read the policy bundle without the shards would lack its
// column, and decide acme's principals tenant_unavailable.
func TestBundleMatrixIsTheModels(t *testing.T) {
	file, folder := buildExamples(t)
	m := load(t, []string{"../../testdata/packs"}, exampleGrants...)
	for _, tenant := range []string{"", "acme", "globex"} {
		want := compute(t, m, Options{Tenant: tenant})
		for _, names := range [][]string{{file}, {folder}} {
			got := computeBundles(t, names, Options{Tenant: tenant})
			if !reflect.DeepEqual(got.Subjects, want.Subjects) {
				t.Errorf("tenant %q, %v: subjects %q; want %q", tenant, names, got.Subjects, want.Subjects)
			}
			if !reflect.DeepEqual(got.Rows, want.Rows) {
				t.Errorf("tenant %q, %v: rows differ from the model's:\n%s\nwant\n%s", tenant, names, text(t, got), text(t, want))
			}
			if got.TenantUnavailable {
				t.Errorf("tenant %q, %v: tenant_unavailable with every shard loaded", tenant, names)
			}
		}
	}
}

// TestBundleMatrixWithoutTheTenantsShard decides a cell that lacks acme's
// shard: for acme's principals every cell is tenant_unavailable, a deny
// the matrix expects and says so of once (TenantUnavailable), never an
// allow that a default grant would give with acme's grants missing; a
// principal of no tenant needs no shard.
func TestBundleMatrixWithoutTheTenantsShard(t *testing.T) {
	_, folder := buildExamples(t)
	acme := compile.Shard("acme", 4)
	names := []string{filepath.Join(folder, bundles.PolicyFile)}
	for k := range 4 {
		if k != acme {
			names = append(names, filepath.Join(folder, bundles.ShardFile(k)))
		}
	}
	mx := computeBundles(t, names, Options{Tenant: "acme"})
	if !mx.TenantUnavailable {
		t.Error("TenantUnavailable is false without acme's shard")
	}
	for _, r := range mx.Rows {
		for s, d := range r.Cells {
			if d != Deny {
				t.Errorf("%s, %s = %q without acme's shard; want deny", r.RowID, s, d)
			}
		}
	}
	// Every subject of the model, role:admin too, whose grants, all of
	// them acme's, this cell does not hold.
	m := load(t, []string{"../../testdata/packs"}, exampleGrants...)
	noTenant := computeBundles(t, names, Options{Subjects: Subjects(m)})
	if want := compute(t, m, Options{}); noTenant.TenantUnavailable || !reflect.DeepEqual(noTenant.Rows, want.Rows) {
		t.Errorf("no tenant, without acme's shard:\n%s\nwant the model's\n%s", text(t, noTenant), text(t, want))
	}
}

// TestUnavailableNote names the tenant's shard, and why it does not
// count: not loaded, or loaded from a build of another number.
func TestUnavailableNote(t *testing.T) {
	_, folder := buildExamples(t)
	other := filepath.Join(t.TempDir(), "cell8")
	o := compile.BuildOptions{Packs: []string{"../../testdata/packs"}, Grants: exampleGrants, Output: other}
	if _, err := compile.BuildShards(o, 8); err != nil {
		t.Fatal(err)
	}
	acme := compile.Shard("acme", 4)
	policyFile := filepath.Join(folder, bundles.PolicyFile)
	ctx := context.Background()
	for _, tt := range []struct {
		shard, want string
	}{
		{"", `note: tenant "acme"'s shard, ` + strconv.Itoa(acme) + ` of 4 (shard-` + strconv.Itoa(acme) + `.tar.gz), is not among the bundles: every cell is tenant_unavailable, shown as deny; give that shard with --bundle`},
		{filepath.Join(other, bundles.ShardFile(acme)), `note: tenant "acme"'s shard, ` + strconv.Itoa(acme) + ` of 4 (shard-` + strconv.Itoa(acme) + `.tar.gz), is from a build of 8 shards: every cell is tenant_unavailable, shown as deny; give that shard with --bundle`},
	} {
		names := []string{policyFile}
		if tt.shard != "" {
			names = append(names, tt.shard)
		}
		p, err := policy.Read(ctx, policy.Source{Bundles: names, Reader: policy.BundleReader{Limits: bundles.DefaultLimits}})
		if err != nil {
			t.Fatal(err)
		}
		if got := UnavailableNote(p.Bundle, "acme"); got != tt.want {
			t.Errorf("%v:\n%s\nwant\n%s", names, got, tt.want)
		}
	}
}

// text is the matrix as its table, for a failure message.
func text(t *testing.T, mx *Matrix) string {
	t.Helper()
	var out bytes.Buffer
	if err := WriteTable(&out, mx, false); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
