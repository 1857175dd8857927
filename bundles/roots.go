package bundles

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// GrantsRoot is the top-level data root of the grant tables. Nothing of
// ours that grows with the deployment sits under hcp: when OPA replaces a
// revision it checks each rule's path against the data, reading up from
// the path, and with the old roots erased that read is data.hcp, which a
// write transaction copies once a rule. Under hcp, the tables made a
// replacement cost rules × tables (docs/bundles.md).
const GrantsRoot = "hcp_grants"

// PacksRoot is the top-level data root of the packs' rows, as named data,
// beside hcp for the same reason as GrantsRoot.
const PacksRoot = "hcp_packs"

// LibraryRoot is the root of the decision library, the bundle's only Rego.
const LibraryRoot = "hcp/authz"

// ExtRoot is the root of a runtime's own bundle, its hcp.ext rules
// (docs/bundles.md, "Beside a runtime bundle"): never one of Roots, so
// that the two load side by side.
const ExtRoot = "hcp/ext"

// Roots returns the roots of the bundle hcp-rego builds, the one list that
// compile writes into a manifest and that ReadDecisionBundle holds a
// bundle to: never "hcp" whole, since ExtRoot belongs to the runtime's
// own bundle, and the rows and the grant tables at roots of their own
// beside hcp, not under it (GrantsRoot).
func Roots() []string {
	return []string{LibraryRoot, PacksRoot, GrantsRoot}
}

// PolicyRoots returns the roots of a sharded build's policy bundle
// (docs/fleet.md): Roots, with the grant tables' root narrowed to the
// tables of the grants without a tenant, so that the shards' roots
// (ShardRoot) sit beside it.
func PolicyRoots() []string {
	return []string{LibraryRoot, PacksRoot, GrantsRoot + "/" + BaseKey}
}

// ShardsKey is the member of the grant tables' root under which a
// sharded build's shards sit: shard K at data.hcp_grants.shards[K].
const ShardsKey = "shards"

// MaxShards is the most shards a build makes (docs/fleet.md).
const MaxShards = 4096

// ShardRoot is the root of shard k's bundle.
func ShardRoot(k int) string {
	return GrantsRoot + "/" + ShardsKey + "/" + strconv.Itoa(k)
}

// checkOurRoots refuses a bundle whose manifest roots, as OPA's reader
// left them (trimmed of slashes, [""] for a manifest without roots), are
// not Roots. A sidecar owns whatever a bundle's roots cover, erasing it
// on activation, and refuses to load beside it a bundle whose roots
// overlap them: wider roots (["hcp", "hcp_grants"], or [""]) keep the
// runtime's hcp/ext bundle out of the sidecar while the embedded
// evaluator decides beside --ext, and an extra root keeps out whatever
// runtime bundle holds it.
func checkOurRoots(name string, b *bundle.Bundle) error {
	var roots []string
	if b.Manifest.Roots != nil {
		roots = *b.Manifest.Roots
	}
	sorted := slices.Sorted(slices.Values(roots))
	if slices.Equal(sorted, slices.Sorted(slices.Values(Roots()))) || slices.Equal(sorted, slices.Sorted(slices.Values(PolicyRoots()))) {
		return nil
	}
	var errs problem.Errors
	errs.Add(name, problem.Pos{}, "bundle refused: manifest roots %s%s are not hcp-rego's (%s; or, a sharded build's, %s)", quoteRoots(roots), everything(roots), strings.Join(Roots(), ", "), strings.Join(PolicyRoots(), ", "))
	return errs.Err()
}

// quoteRoots writes roots as a JSON list would, each quoted.
func quoteRoots(roots []string) string {
	quoted := make([]string, len(roots))
	for i, r := range roots {
		quoted[i] = strconv.Quote(r)
	}
	return "[" + strings.Join(quoted, ",") + "]"
}

// everything says what the root "" means, which OPA's reader also gives
// a manifest that names no roots.
func everything(roots []string) string {
	if slices.Contains(roots, "") {
		return " (all of data: what a manifest without roots has)"
	}
	return ""
}

// BundleRoots are the manifest roots of one bundle read, with the name its
// messages give it.
type BundleRoots struct {
	Name  string
	Roots []string
}

// CheckApart refuses bundles read together whose roots overlap, by OPA's
// own check: a sidecar activates no two bundles whose roots overlap
// (bundle.Activate refuses them before it changes anything), so what the
// embedded evaluator would decide with them all, no sidecar decides. The
// check activates manifest-only copies into an empty in-memory store: it
// costs what the roots cost, not what the bundles hold. The names must
// differ. The error names the first bundle given, then OPA's words.
func CheckApart(all ...BundleRoots) error {
	if len(all) < 2 {
		return nil
	}
	ctx := context.Background()
	store := inmem.New()
	txn, err := store.NewTransaction(ctx, storage.WriteParams)
	if err != nil {
		return err
	}
	defer store.Abort(ctx, txn)
	stubs := make(map[string]*bundle.Bundle, len(all))
	for _, b := range all {
		roots := slices.Clone(b.Roots)
		stubs[b.Name] = &bundle.Bundle{Manifest: bundle.Manifest{Roots: &roots}}
	}
	err = bundle.Activate(&bundle.ActivateOpts{
		Ctx: ctx, Store: store, Txn: txn, Compiler: ast.NewCompiler(), Metrics: metrics.New(), Bundles: stubs,
	})
	if err != nil {
		var errs problem.Errors
		errs.Add(all[0].Name, problem.Pos{}, "bundle refused: %s", err)
		return errs.Err()
	}
	return nil
}

// checkWasm refuses a bundle that holds a WebAssembly module or gives
// an entry point to one in its manifest's wasm entries: an OPA with the
// Wasm engine decides such an entry point by the module, one without it
// refuses the bundle, and the embedded evaluator would decide by the Rego
// beside it. Every module and entry is named.
func checkWasm(name string, b *bundle.Bundle) error {
	var errs problem.Errors
	for _, m := range b.WasmModules {
		errs.Add(name, problem.Pos{}, "bundle refused: %s is a WebAssembly module, which hcp-rego does not run: a sidecar with the Wasm engine decides by it what the manifest's wasm entries give it", strings.TrimPrefix(m.Path, "/"))
	}
	for _, w := range b.Manifest.WasmResolvers {
		errs.Add(name, problem.Pos{}, "bundle refused: .manifest's wasm entry gives %s to the WebAssembly module %s: an OPA with the Wasm engine decides it by that module, one without refuses the bundle", w.Entrypoint, strings.TrimPrefix(w.Module, "/"))
	}
	return errs.Err()
}
