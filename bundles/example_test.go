package bundles_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
)

// Build a bundle, sign it, write it atomically, and read it back as a
// sidecar does, verifying its signature: a bundle signed by another key
// is refused.
func Example() {
	m, err := compile.Checked([]string{"../testdata/packs"}, []string{"../testdata/grants/acme.json"})
	if err != nil {
		log.Fatal(err)
	}
	b, err := compile.Compile(m, "r1")
	if err != nil {
		log.Fatal(err)
	}
	data, err := bundles.Build(b, &bundles.Signing{KeyFile: "../testdata/keys/rsa.key", KeyID: "hcp"})
	if err != nil {
		log.Fatal(err)
	}
	dir, _ := os.MkdirTemp("", "hcp-rego-example-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "hcp.tar.gz")
	if err := bundles.WriteFileAtomic(path, data); err != nil {
		log.Fatal(err)
	}
	read, err := bundles.Read(path, &bundles.Verification{KeyFile: "../testdata/keys/rsa.pub", KeyID: "hcp"}, bundles.DefaultLimits)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(read.Manifest.Revision, *read.Manifest.Roots)
	_, err = bundles.Read(path, &bundles.Verification{KeyFile: "../testdata/keys/other-rsa.pub", KeyID: "hcp"}, bundles.DefaultLimits)
	fmt.Println(err != nil)
	// Output:
	// r1 [hcp/authz hcp_packs hcp_grants]
	// true
}
