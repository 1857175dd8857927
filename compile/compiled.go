package compile

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/rego/library"
)

// Compile returns everything the checked model compiles to (only
// Sources.Check makes one), as the OPA bundle that holds it (docs/bundles.md):
// the decision library, the bundle's only Rego, sorted by path; the
// packs' rows as named data at hcp_packs; the grant tables as data at
// hcp_grants, with the sha256 of each source file beside them
// (hcp_grants.base.sources); and a manifest with the revision, the roots and,
// in metadata.hcp, the number of packs and of source files and a digest of
// that list (bundles.Provenance). An empty revision means a digest of the
// content, so the same inputs give the same revision. The modules are left
// unparsed: writing a bundle needs only their bytes, and an evaluator
// parses them (rego.ParseModules). Package bundles packs, signs and writes
// it; the embedded evaluator decides with it as it is.
func Compile(m *Model, revision string) (*bundle.Bundle, error) {
	b, _, err := assemble(m, revision, false, 0)
	return b, err
}

// compileToWrite is Compile for a bundle that is to be written: it also
// returns the bundle's data with the rows and the grant tables already
// encoded as JSON (the same data, for encoded.Build). They are most of a
// large bundle, and the digest of a default revision encodes them anyway:
// a build then encodes them once, not twice. With shards > 0 it is a
// sharded build's policy bundle.
func compileToWrite(m *Model, revision string, shards int) (*bundle.Bundle, map[string]any, error) {
	b, encoded, err := assemble(m, revision, true, shards)
	if err != nil {
		return nil, nil, err
	}
	return b, bundleData(json.RawMessage(encoded.packs), json.RawMessage(encoded.tables)), nil
}

// bundleData is the bundle's data: the rows at hcp_packs, the grant
// tables at hcp_grants, and an empty object at hcp.authz, the root that
// holds the library. OPA checks each rule's path against the data when it
// activates a bundle (ast.CheckPathConflicts), reading up from the path to
// the first value it finds, and a write transaction copies what it reads.
// With hcp.authz present, the read after the new data is written stops
// there; the read made while the old roots are erased is data.hcp, which
// holds nothing of ours that grows with the deployment
// (bundles.GrantsRoot).
func bundleData(packs, tables any) map[string]any {
	return map[string]any{
		"hcp":              map[string]any{"authz": map[string]any{}},
		bundles.PacksRoot:  packs,
		bundles.GrantsRoot: tables,
	}
}

// encodedData is the JSON of the rows and of the grant tables.
type encodedData struct{ packs, tables []byte }

// assemble builds the bundle of m and, when asked or when the default
// revision needs them for its digest, the JSON of its rows and tables.
// With shards > 0 it is a sharded build's policy bundle (BuildShards):
// its tables hold the grants without a tenant, at root hcp_grants/base.
func assemble(m *Model, revision string, wantJSON bool, shards int) (*bundle.Bundle, encodedData, error) {
	// The grant tables (the list of sources beside them), and their JSON,
	// are made beside the rows: neither reads the other, and the tables are
	// the larger piece of work.
	var (
		tables    map[string]any
		encoded   encodedData
		tablesErr error
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tables = grantTables(m, shards)
		if revision == "" || wantJSON {
			encoded.tables, tablesErr = json.Marshal(tables)
		}
	}()
	packs := packsData(m)
	var packsErr error
	if revision == "" || wantJSON {
		encoded.packs, packsErr = json.Marshal(packs)
	}
	<-done
	if err := cmp.Or(tablesErr, packsErr); err != nil {
		return nil, encodedData{}, fmt.Errorf("encode data: %w", err)
	}
	mods := modules()
	if revision == "" {
		revision = digest(m, mods, encoded, shards)
	}
	b := &bundle.Bundle{
		Manifest: manifest(m, revision, shards),
		Data:     bundleData(packs, tables),
	}
	for _, mod := range mods {
		b.Modules = append(b.Modules, bundle.ModuleFile{URL: "/" + mod.Path, Path: "/" + mod.Path, Raw: mod.Source})
	}
	return b, encoded, nil
}

// modules returns the bundle's Rego modules, sorted by path: the decision
// library alone, the same for every bundle.
func modules() []module {
	var mods []module
	for _, lib := range library.Modules() {
		mods = append(mods, module{Path: lib.Path, Source: lib.Source})
	}
	slices.SortFunc(mods, func(a, b module) int { return strings.Compare(a.Path, b.Path) })
	return mods
}

func manifest(m *Model, revision string, shards int) bundle.Manifest {
	roots := bundles.Roots()
	if shards > 0 {
		roots = bundles.PolicyRoots()
	}
	version := 1
	return bundle.Manifest{
		Revision:    revision,
		Roots:       &roots,
		RegoVersion: &version,
		Metadata:    provenance(m, shards).Metadata(),
	}
}

// provenance is what the manifest says of m's sources: counts and one
// digest, whatever the number of packs. The list itself is data, beside
// the grant tables (bundles.SourcesKey).
func provenance(m *Model, shards int) bundles.Provenance {
	sources := sourceDigests(m, shards)
	return bundles.Provenance{Packs: len(m.packs), Sources: len(sources), SHA256: bundles.SourcesDigest(sources)}
}

// sourcesData is the list of sources as the bundle's data holds it,
// values of JSON's kinds, as the evaluator's store takes them.
func sourcesData(digests map[string]string) map[string]any {
	data := map[string]any{}
	for path, sum := range digests {
		data[path] = sum
	}
	return data
}

// sourceDigests maps every source file to its sha256. A sharded build's
// policy bundle (shards > 0) lists the packs' files only: a grant file's
// sha256 changes with any grant in it, and the policy bundle must not
// change with one tenant's grants (docs/fleet.md); the grant files'
// names and order are in its tables (files), each shard's grants in its
// own bundle, whose revision is their digest.
func sourceDigests(m *Model, shards int) map[string]string {
	files := map[string]string{}
	for _, p := range m.packs {
		for path, sum := range p.Digests {
			files[path] = sum
		}
	}
	if shards > 0 {
		return files
	}
	for path, sum := range m.grantDigests {
		files[path] = sum
	}
	return files
}

// digest is the default revision of m's bundle: the first 16 hex digits
// of a sha256 over what the bundle holds, namely every module's path and
// bytes, the rows and the grant tables (the sha256 of their JSON), and
// every source file's path and sha256 with the grant files' order (which
// decides provenance). A bundle with other content has another revision,
// even when only the hcp-rego that made it changed.
func digest(m *Model, mods []module, encoded encodedData, shards int) string {
	h := sha256.New()
	files := sourceDigests(m, shards)
	for _, path := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "%s %s\n", path, files[path])
	}
	fmt.Fprintf(h, "grants %s\n", strings.Join(m.grantFiles, " "))
	for _, mod := range mods {
		fmt.Fprintf(h, "%s %x\n", mod.Path, sha256.Sum256(mod.Source))
	}
	fmt.Fprintf(h, "packs %x\n", sha256.Sum256(encoded.packs))
	fmt.Fprintf(h, "data %x\n", sha256.Sum256(encoded.tables))
	return hex.EncodeToString(h.Sum(nil))[:16]
}
