package library_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	oparego "github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/rego/library"
)

// shardTenants are tenant ids of every kind a router may hash: ASCII,
// non-ASCII of two, three and four UTF-8 bytes, control characters and
// spaces, JSON's special characters, digits and hex that look like a
// hash, one byte long and 4 KB long, and 2,000 generated ones.
func shardTenants() []string {
	out := []string{
		"acme", "globex", "a", "0", "ffffffff", " ", "\t", "\x00", "\x7f", "a b", `"`, `\`, "<&>",
		"é", "ünï", "日本", "🙂", "tenant-🙂-日本", "\u200b", "\ufeffacme", strings.Repeat("x", 4096),
	}
	for i := range 2000 {
		out = append(out, fmt.Sprintf("t%d-%c", i, rune(0xa0+i*7)))
	}
	return out
}

// TestShardKeyAgrees evaluates the library's _shard_key, the key under
// data.hcp_grants.shards of the principal's tenant's shard, in OPA for
// many tenants and numbers of shards: it is compile.Shard's (which
// `hcp-rego shard` prints and a router computes) every time, and
// undefined for an empty tenant, which names no shard.
func TestShardKeyAgrees(t *testing.T) {
	ctx := context.Background()
	tenants := shardTenants()
	for _, n := range []int{2, 3, 4, 7, 16, 255, 256, 1000, 4096} {
		q := shardKeyQuery(t, n)
		for _, tenant := range tenants {
			rs, err := q.Eval(ctx, oparego.EvalInput(map[string]any{"principal": map[string]any{"id": "p", "tenant": tenant}}))
			if err != nil {
				t.Fatal(err)
			}
			want := strconv.Itoa(compile.Shard(tenant, n))
			if len(rs) != 1 || rs[0].Expressions[0].Value != want {
				t.Fatalf("_shard_key of %q among %d = %v, compile.Shard says %s", tenant, n, rs, want)
			}
		}
		rs, err := q.Eval(ctx, oparego.EvalInput(map[string]any{"principal": map[string]any{"id": "p", "tenant": ""}}))
		if err != nil || len(rs) != 0 {
			t.Errorf("_shard_key of the empty tenant among %d = %v, %v; want undefined", n, rs, err)
		}
	}
}

// shardedBase is the data of the policy bundle of a sharded build of n
// shards of the example packs, as built and read back.
func shardedBase(t *testing.T, n int) map[string]any {
	t.Helper()
	out := filepath.Join(t.TempDir(), "shards")
	if _, err := compile.BuildShards(compile.BuildOptions{Packs: []string{"../../testdata/packs"}, Output: out}, n); err != nil {
		t.Fatal(err)
	}
	b, err := bundles.ReadDecisionBundle(filepath.Join(out, bundles.PolicyFile), nil, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return b.Data
}

// shardKeyQuery prepares data.hcp.authz._shard_key over the library and
// the base tables of a sharded build of n shards.
func shardKeyQuery(t *testing.T, n int) oparego.PreparedEvalQuery {
	t.Helper()
	opts := []func(*oparego.Rego){
		oparego.Query("data.hcp.authz._shard_key"),
		oparego.Store(inmem.NewFromObject(shardedBase(t, n))),
		oparego.SetRegoVersion(ast.RegoV1),
	}
	for _, m := range library.Modules() {
		opts = append(opts, oparego.Module(m.Path, string(m.Source)))
	}
	q, err := oparego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return q
}
