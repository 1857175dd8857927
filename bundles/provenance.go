package bundles

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// A bundle's provenance is every source file that made it (each pack's
// manifest.json and policy.json, each grant file) with its sha256. The
// list is data, at data.hcp_grants.base.sources (SourcesKey), and the
// manifest names it by its digest and its count alone (Provenance): an
// OPA server reads every bundle's manifest on each request (its decision
// log names the revisions), and with --optimize-store-for-read-speed
// converts it to Go values each time, so what the manifest holds must
// not grow with the packs. The list grows with them, out of that path;
// a signature covers it with the data.
const (
	// SourcesKey is the member of the base grant tables that holds the
	// list: data.hcp_grants.base.sources, {path: sha256}.
	SourcesKey = "sources"
	// BaseKey is the member of the grant tables' root that holds the
	// tables of the grants without a tenant and, unless the build is
	// sharded, of every grant: data.hcp_grants.base.
	BaseKey = "base"
	// MetadataKey is the member of the manifest's metadata that names
	// the bundle hcp-rego's: metadata.hcp, a Provenance.
	MetadataKey = "hcp"
)

// Provenance is what the manifest says of a bundle's sources, the same
// few values whatever the number of packs.
type Provenance struct {
	Packs   int    // packs compiled
	Sources int    // source files listed at data.hcp_grants.base.sources
	SHA256  string // SourcesDigest of that list
}

// Metadata is p as the manifest's metadata holds it.
func (p Provenance) Metadata() map[string]any {
	return map[string]any{MetadataKey: map[string]any{"packs": p.Packs, "sources": p.Sources, "sources_sha256": p.SHA256}}
}

// SourcesDigest is the sha256, in hex, of the list of sources as
// encoding/json writes it: one object, its members sorted by path, with
// no space.
func SourcesDigest(sources map[string]string) string {
	text, _ := json.Marshal(sources) // a map of strings always encodes
	sum := sha256.Sum256(text)
	return hex.EncodeToString(sum[:])
}

// checkProvenance refuses a bundle whose manifest names a digest of its
// sources that the list in its data does not give: its provenance could
// not be checked. A manifest that names none (a bundle not built by
// hcp-rego, or built before the list moved to data, which the manifest
// then held itself) is not checked.
func checkProvenance(name string, b *bundle.Bundle) error {
	meta, _ := b.Manifest.Metadata[MetadataKey].(map[string]any)
	want, claimed := meta["sources_sha256"]
	if !claimed {
		return nil
	}
	list, ok := sourcesOf(b.Data)
	if !ok {
		return provenanceError(name, "data.hcp_grants.base.sources is missing, or not an object of strings")
	}
	if got := SourcesDigest(list); want != got || !sameCount(meta["sources"], len(list)) {
		return provenanceError(name, fmt.Sprintf("data.hcp_grants.base.sources lists %d files of sha256 %s", len(list), got))
	}
	return nil
}

// sourcesOf is the list of sources in a bundle's data, and whether it is
// an object of strings.
func sourcesOf(data map[string]any) (map[string]string, bool) {
	root, _ := data[GrantsRoot].(map[string]any)
	tables, _ := root[BaseKey].(map[string]any)
	raw, ok := tables[SourcesKey].(map[string]any)
	if !ok {
		return nil, false
	}
	list := make(map[string]string, len(raw))
	for path, v := range raw {
		sum, ok := v.(string)
		if !ok {
			return nil, false
		}
		list[path] = sum
	}
	return list, true
}

// sameCount reports whether v, a count as OPA's reader decoded it (a
// json.Number), is n.
func sameCount(v any, n int) bool {
	num, ok := v.(json.Number)
	return ok && string(num) == strconv.Itoa(n)
}

// provenanceError refuses bundle name: its manifest's metadata.hcp does
// not name its list of sources, as what says.
func provenanceError(name, what string) error {
	var errs problem.Errors
	errs.Add(name, problem.Pos{}, "bundle refused: .manifest's metadata.hcp names sources that its data does not hold (%s): its provenance cannot be checked", what)
	return errs.Err()
}
