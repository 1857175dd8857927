package compile_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// Load and check the example packs and grants, compile them, and decide a
// call with the embedded evaluator: the decision names the policy row and
// the grant behind it.
func Example() {
	m, err := compile.Checked([]string{"../testdata/packs"}, []string{"../testdata/grants/acme.json"})
	if err != nil {
		log.Fatal(err) // every problem, each at its file:line:col
	}
	b, err := compile.Compile(m, "r1")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ev, err := hcprego.New(ctx, b)
	if err != nil {
		log.Fatal(err)
	}
	res, err := ev.Decide(ctx, map[string]any{
		"principal": map[string]any{"id": "bob", "roles": []any{"member"}},
		"pack_id":   "mail", "verb_key": "mail.list", "owner": "bob",
	})
	if err != nil {
		log.Fatal(err)
	}
	d := res.Decision
	fmt.Println(d.Code, d.SourceRow, d.SourceGrant)
	// Output: allowed ../testdata/packs/mail/policy.json:5 ../testdata/grants/acme.json:4
}

// A pack whose policy lacks a command of its manifest is refused, with
// every problem of the run at its file and line.
func ExampleSources_Check() {
	dir, _ := os.MkdirTemp("", "hcp-rego-example-")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"id": "shop", "commands": {"browse": {}, "buy": {}}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "policy.json"), []byte(`{"surface_id": "shop", "version": 1,
  "verbs": {"browse": {"operation": "read", "privacy": {"land": "personal"}}}}`), 0o644)
	_, err := compile.Open([]string{dir}, nil).Check()
	fmt.Println(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "shop/"))
	// Output: shop/manifest.json:1:43: verb "buy" missing from policy.json
}

// Build writes a signed bundle, as `hcp-rego build` does, in one call.
func ExampleBuild() {
	dir, _ := os.MkdirTemp("", "hcp-rego-example-")
	defer os.RemoveAll(dir)
	built, err := compile.Build(compile.BuildOptions{
		Packs:    []string{"../testdata/packs"},
		Grants:   []string{"../testdata/grants/acme.json", "../testdata/grants/defaults.json"},
		Output:   filepath.Join(dir, "hcp.tar.gz"),
		Revision: "r1",
		Signing:  &bundles.Signing{KeyFile: "../testdata/keys/rsa.key", KeyID: "hcp"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(built.Revision, built.Packs, built.Grants)
	// Output: r1 3 11
}
