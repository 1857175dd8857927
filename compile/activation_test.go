package compile_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/hcp-rego/hcp-rego/bench/largeset"
	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
)

// TestReplacingActivationReadsNoGrantTables activates a revision in OPA's
// own store with OPA's own activation, then a second revision in its
// place. Once the new data is written, OPA checks each rule's path against
// it, reading up from the path to the first value it finds; were data.hcp
// that value, every read would copy the grant tables while the replacing
// transaction is open (once a rule: minutes for the large set). So the
// reads of data.hcp must not grow with the packs. (The bundle plugin's
// compiler makes the same check earlier, while the old revision's roots
// are erased and data.hcp is the first value whatever the bundle holds;
// docs/bundles.md says what that costs.)
func TestReplacingActivationReadsNoGrantTables(t *testing.T) {
	few, many := hcpReads(t, 4, false), hcpReads(t, 40, false)
	if many > few {
		t.Errorf("replacing a revision read data.hcp %d times with 40 packs and %d with 4: once a rule, each read copying the grant tables", many, few)
	}
	t.Logf("data.hcp read %d times with 4 packs, %d with 40", few, many)
}

// TestReplacingActivationChecksOneRuleAPack replaces a revision as OPA's
// bundle plugin does, with a compiler that checks rule paths against the
// data while the old revision's roots are erased: there every check copies
// data.hcp, whatever the bundle holds, so a pack's module must add one
// rule path, not one a member.
func TestReplacingActivationChecksOneRuleAPack(t *testing.T) {
	few, many := hcpReads(t, 4, true), hcpReads(t, 40, true)
	if many-few > 40-4 {
		t.Errorf("replacing a revision read data.hcp %d times with 40 packs and %d with 4: more than once a pack", many, few)
	}
	t.Logf("data.hcp read %d times with 4 packs, %d with 40", few, many)
}

// hcpReads is how often replacing a revision of a generated set of packs
// reads data.hcp whole; with plugin, the compiler checks rule paths
// against the data as the bundle plugin's does.
func hcpReads(t *testing.T, packs int, plugin bool) int {
	t.Helper()
	set, err := largeset.Write(t.TempDir(), largeset.Spec{Packs: packs, Verbs: 10, Triggers: 2, Grants: 200, GrantFiles: 1, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	m, err := compile.Checked(set.PackDirs, set.GrantFiles)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store := &readCounter{Store: inmem.New(), path: storage.MustParsePath("/hcp")}
	for i, revision := range []string{"r1", "r2"} {
		b, err := compile.Compile(m, revision)
		if err != nil {
			t.Fatal(err)
		}
		tarball, err := bundles.Build(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		read, err := bundle.NewReader(bytes.NewReader(tarball)).Read()
		if err != nil {
			t.Fatal(err)
		}
		store.counting = i == 1
		txn := storage.NewTransactionOrDie(ctx, store, storage.WriteParams)
		compiler := ast.NewCompiler()
		if plugin {
			compiler = compiler.WithPathConflictsCheck(storage.NonEmpty(ctx, store, txn)).WithPathConflictsCheckRoots(*read.Manifest.Roots)
		}
		if err := bundle.Activate(&bundle.ActivateOpts{Ctx: ctx, Store: store, Txn: txn, Compiler: compiler,
			Metrics: metrics.New(), Bundles: map[string]*bundle.Bundle{"hcp": &read}}); err != nil {
			t.Fatalf("activate %s: %v", revision, err)
		}
		if err := store.Commit(ctx, txn); err != nil {
			t.Fatal(err)
		}
	}
	return store.reads
}

// readCounter counts the reads of one path while counting is set.
type readCounter struct {
	storage.Store
	path     storage.Path
	counting bool
	reads    int
}

func (r *readCounter) Read(ctx context.Context, txn storage.Transaction, path storage.Path) (any, error) {
	if r.counting && path.Equal(r.path) {
		r.reads++
	}
	return r.Store.Read(ctx, txn, path)
}
