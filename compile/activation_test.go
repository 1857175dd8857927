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

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
	"github.com/hcp-rego/hcp-rego/internal/bundletest"
)

// TestReplacingActivationCopiesNoGrantTables replaces a revision with
// OPA's own activation and the bundle plugin's compiler, which checks each
// rule's path against the data while the old revision's roots are erased,
// reading up from the path to the first value it finds. Inside the
// replacing write transaction each read copies what it returns, so a read
// of a path at or above the grant tables copies them: that must not
// happen once a rule, or a rollout costs rules × tables. The same check
// on the layout of the bundles built before the tables left hcp (data
// hcp.grants) must fail, or it proves nothing.
func TestReplacingActivationCopiesNoGrantTables(t *testing.T) {
	layouts := []struct {
		name    string
		tables  string // where the layout keeps the grant tables
		bundle  func(*bundle.Bundle) *bundle.Bundle
		perRule bool // whether the tables are copied once a rule
	}{
		{"tables at hcp_grants", "/hcp_grants", func(b *bundle.Bundle) *bundle.Bundle { return b }, false},
		{"tables at hcp.grants, as before", "/hcp/grants", bundletest.LegacyLayout, true},
	}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			path := storage.MustParsePath(l.tables)
			few, many := tableReads(t, 4, path, l.bundle), tableReads(t, 40, path, l.bundle)
			t.Logf("the grant tables copied %d times with 4 packs, %d with 40", few, many)
			if perRule := many > 10; perRule != l.perRule {
				t.Errorf("replacing a revision copied the grant tables %d times with 4 packs and %d with 40; want them copied once a rule of the library: %v", few, many, l.perRule)
			}
			if !l.perRule && max(few, many) > 1 {
				t.Errorf("replacing a revision copied the grant tables %d times, want at most once", max(few, many))
			}
		})
	}
}

// TestReplacingActivationChecksNoRuleAPack replaces a revision as OPA's
// bundle plugin does: there every rule path checked reads data.hcp, which
// a runtime's data under hcp/ext makes large (docs/bundles.md), so the
// packs, which are data, must add no rule path: the reads are the same
// for 4 packs and for 40.
func TestReplacingActivationChecksNoRuleAPack(t *testing.T) {
	hcp := storage.MustParsePath("/hcp")
	same := func(b *bundle.Bundle) *bundle.Bundle { return b }
	few, many := tableReads(t, 4, hcp, same), tableReads(t, 40, hcp, same)
	if many != few {
		t.Errorf("replacing a revision read data.hcp %d times with 40 packs and %d with 4: the packs add rule paths", many, few)
	}
	t.Logf("data.hcp read %d times with 4 packs, %d with 40", few, many)
}

// tableReads replaces a revision of a generated set of packs, laid out by
// layout, with OPA's activation and a compiler that checks rule paths
// against the data as the bundle plugin's does, and returns how often the
// replacement read a path at or above target.
func tableReads(t *testing.T, packs int, target storage.Path, layout func(*bundle.Bundle) *bundle.Bundle) int {
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
	store := &readCounter{Store: inmem.New(), target: target}
	for i, revision := range []string{"r1", "r2"} {
		b, err := compile.Compile(m, revision)
		if err != nil {
			t.Fatal(err)
		}
		tarball, err := bundles.Build(layout(b), nil)
		if err != nil {
			t.Fatal(err)
		}
		read, err := bundle.NewReader(bytes.NewReader(tarball)).Read()
		if err != nil {
			t.Fatal(err)
		}
		store.counting = i == 1
		txn := storage.NewTransactionOrDie(ctx, store, storage.WriteParams)
		compiler := ast.NewCompiler().WithPathConflictsCheck(storage.NonEmpty(ctx, store, txn)).WithPathConflictsCheckRoots(*read.Manifest.Roots)
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

// readCounter counts, while counting is set, the reads of target or of
// a path above it: each returns target's value within its own.
type readCounter struct {
	storage.Store
	target   storage.Path
	counting bool
	reads    int
}

func (r *readCounter) Read(ctx context.Context, txn storage.Transaction, path storage.Path) (any, error) {
	if r.counting && r.target.HasPrefix(path) {
		r.reads++
	}
	return r.Store.Read(ctx, txn, path)
}
