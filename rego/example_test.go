package rego_test

import (
	"context"
	"fmt"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// exampleBundle builds the example packs' bundle, signed, into a
// temporary folder and returns its path.
func exampleBundle() (string, func()) {
	dir, _ := os.MkdirTemp("", "hcp-rego-example-")
	path := filepath.Join(dir, "hcp.tar.gz")
	_, err := compile.Build(compile.BuildOptions{
		Packs:   []string{"../testdata/packs"},
		Grants:  []string{"../testdata/grants/acme.json", "../testdata/grants/defaults.json"},
		Output:  path,
		Signing: &bundles.Signing{KeyFile: "../testdata/keys/rsa.key", KeyID: "hcp"},
	})
	if err != nil {
		log.Fatal(err)
	}
	return path, func() { os.RemoveAll(dir) }
}

// Decide calls against a bundle read back from its file, its signature
// verified as a sidecar verifies it, beside a runtime's own rule: a
// decision is a document, and its members decoded.
func Example() {
	path, cleanup := exampleBundle()
	defer cleanup()
	ctx := context.Background()
	b, err := bundles.ReadDecisionBundle(path, &bundles.Verification{KeyFile: "../testdata/keys/rsa.pub", KeyID: "hcp"}, bundles.DefaultLimits)
	if err != nil {
		log.Fatal(err)
	}
	ev, err := hcprego.New(ctx, b, hcprego.WithModule("ext.rego", "package hcp.ext\n\ndeny contains \"frozen\" if input.principal.id == \"carol\"\n"))
	if err != nil {
		log.Fatal(err)
	}
	for _, who := range []string{"bob", "carol"} {
		res, err := ev.Decide(ctx, map[string]any{
			"principal": map[string]any{"id": who, "roles": []any{"member"}},
			"pack_id":   "mail", "verb_key": "mail.list", "owner": who,
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(who, res.Decision.Code, res.Decision.Reasons)
	}
	// Output:
	// bob allowed []
	// carol runtime_denied [frozen]
}

// List what a principal may do in a pack, in one query: each command's
// and trigger's disposition, as an operator's console shows it.
func ExampleEvaluator_Permissions() {
	m, err := compile.Checked([]string{"../testdata/packs"}, []string{"../testdata/grants/acme.json"})
	if err != nil {
		log.Fatal(err)
	}
	b, err := compile.Compile(m, "")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ev, err := hcprego.New(ctx, b)
	if err != nil {
		log.Fatal(err)
	}
	p, err := ev.Permissions(ctx, map[string]any{
		"principal": map[string]any{"id": "bob", "roles": []any{"member"}},
		"pack_id":   "mail", "owner": "bob",
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, key := range slices.Sorted(maps.Keys(p.Verbs)) {
		fmt.Println(key, p.Verbs[key].Disposition, p.Verbs[key].Code)
	}
	// Output:
	// mail.connect deny capability_required
	// mail.get allow allowed
	// mail.list allow allowed
	// mail.send ask confirm_required
	// notes.create deny land_denied
}
