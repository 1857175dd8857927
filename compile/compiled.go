package compile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/bundle"
	"golang.org/x/sync/errgroup"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/rego/library"
)

// Compile returns everything the checked model compiles to (only
// Sources.Check makes one), as the OPA bundle that holds it (SPEC §4.3):
// the decision library and one generated module a pack, sorted by path;
// the grant tables as data at hcp_grants, with the sha256 of each source
// file beside them (hcp_grants.sources); and a manifest with the
// revision, the roots and, in metadata.hcp, the number of packs and of
// source files and a digest of that list (bundles.Provenance). An empty revision means a digest of the content, so
// the same inputs give the same revision. The modules are left unparsed:
// writing a bundle needs only their bytes, and an evaluator parses them
// (rego.ParseModules). Package bundles packs, signs and writes it; the
// embedded evaluator decides with it as it is.
func Compile(m *Model, revision string) (*bundle.Bundle, error) {
	b, _, err := assemble(m, revision, false)
	return b, err
}

// CompileToWrite is Compile for a bundle that is to be written: it also
// returns the bundle's data with the grant tables already encoded as JSON
// (the same data, for bundles.BuildEncoded). The tables are most of a
// large bundle, and the digest of a default revision encodes them anyway:
// a build then encodes them once, not twice.
func CompileToWrite(m *Model, revision string) (*bundle.Bundle, map[string]any, error) {
	b, tablesJSON, err := assemble(m, revision, true)
	if err != nil {
		return nil, nil, err
	}
	return b, bundleData(json.RawMessage(tablesJSON)), nil
}

// bundleData is the bundle's data: the grant tables at hcp_grants, and an
// empty object at each of the two roots that hold only modules. OPA checks
// each rule's path against the data when it activates a bundle
// (ast.CheckPathConflicts), reading up from the path to the first value it
// finds, and a write transaction copies what it reads. With hcp.authz and
// hcp.packs present, the read after the new data is written stops there;
// the read made while the old roots are erased is data.hcp, which holds
// nothing of ours that grows with the deployment (bundles.GrantsRoot).
func bundleData(tables any) map[string]any {
	return map[string]any{
		"hcp": map[string]any{
			"authz": map[string]any{},
			"packs": map[string]any{},
		},
		bundles.GrantsRoot: tables,
	}
}

// assemble builds the bundle of m and, when asked or when the default
// revision needs them for its digest, the JSON of its grant tables.
func assemble(m *Model, revision string, wantJSON bool) (*bundle.Bundle, []byte, error) {
	// The grant tables (the list of sources beside them) and their JSON
	// are made beside the modules:
	// neither reads the other, and the tables are one piece of work that
	// the modules' CPUs would otherwise wait for.
	var (
		tables     map[string]any
		tablesJSON []byte
		tablesErr  error
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tables = grantTables(m)
		tables[bundles.SourcesKey] = sourcesData(m)
		if revision == "" || wantJSON {
			tablesJSON, tablesErr = json.Marshal(tables)
		}
	}()
	mods, err := modules(m)
	<-done
	if err != nil {
		return nil, nil, err
	}
	if tablesErr != nil {
		return nil, nil, fmt.Errorf("encode grant tables: %w", tablesErr)
	}
	if revision == "" {
		revision = digest(m, mods, sha256.Sum256(tablesJSON))
	}
	b := &bundle.Bundle{
		Manifest: manifest(m, revision),
		Data:     bundleData(tables),
	}
	for _, mod := range mods {
		b.Modules = append(b.Modules, bundle.ModuleFile{URL: "/" + mod.Path, Path: "/" + mod.Path, Raw: mod.Source})
	}
	return b, tablesJSON, nil
}

// modules returns every module of m's bundle, sorted by path: the
// decision library and one generated module a pack, generated on all
// CPUs.
func modules(m *Model) ([]module, error) {
	packs := make([]module, len(m.packs))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, p := range m.packs {
		g.Go(func() error {
			var err error
			packs[i], err = packModule(p)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var mods []module
	for _, lib := range library.Modules() {
		mods = append(mods, module{Path: lib.Path, Source: lib.Source})
	}
	mods = append(mods, packs...)
	slices.SortFunc(mods, func(a, b module) int { return strings.Compare(a.Path, b.Path) })
	return mods, nil
}

func manifest(m *Model, revision string) bundle.Manifest {
	roots := bundles.Roots()
	version := 1
	return bundle.Manifest{
		Revision:    revision,
		Roots:       &roots,
		RegoVersion: &version,
		Metadata:    provenance(m).Metadata(),
	}
}

// provenance is what the manifest says of m's sources: counts and one
// digest, whatever the number of packs. The list itself is data, beside
// the grant tables (bundles.SourcesKey).
func provenance(m *Model) bundles.Provenance {
	sources := sourceDigests(m)
	return bundles.Provenance{Packs: len(m.packs), Sources: len(sources), SHA256: bundles.SourcesDigest(sources)}
}

// sourcesData is the list of sources as the bundle's data holds it,
// values of JSON's kinds, as the evaluator's store takes them.
func sourcesData(m *Model) map[string]any {
	data := map[string]any{}
	for path, sum := range sourceDigests(m) {
		data[path] = sum
	}
	return data
}

// sourceDigests maps every source file to its sha256.
func sourceDigests(m *Model) map[string]string {
	files := map[string]string{}
	for _, p := range m.packs {
		for path, sum := range p.Digests {
			files[path] = sum
		}
	}
	for path, sum := range m.grantDigests {
		files[path] = sum
	}
	return files
}

// digest is the default revision of m's bundle: the first 16 hex digits
// of a sha256 over what the bundle holds, namely every module's path and
// bytes, the grant tables (tableSum, the sha256 of their JSON), and every
// source file's path and sha256 with the grant files' order (which
// decides provenance). A bundle with other content has another revision, even
// when only the hcp-rego that made it changed.
func digest(m *Model, mods []module, tableSum [sha256.Size]byte) string {
	h := sha256.New()
	files := sourceDigests(m)
	for _, path := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "%s %s\n", path, files[path])
	}
	fmt.Fprintf(h, "grants %s\n", strings.Join(m.grantFiles, " "))
	for _, mod := range mods {
		fmt.Fprintf(h, "%s %x\n", mod.Path, sha256.Sum256(mod.Source))
	}
	fmt.Fprintf(h, "data %x\n", tableSum)
	return hex.EncodeToString(h.Sum(nil))[:16]
}
