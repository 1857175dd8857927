package compile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/encoded"
)

// TestBuildEncodedSameBytes holds what `hcp-rego build` writes, with the
// grant tables encoded once (compileToWrite and encoded.Build), to the
// bytes of compiling and building the bundle as it is (Compile and
// bundles.Build): with the default revision and a given one, unsigned
// and signed, with grants whose subjects and tenants JSON escapes (<, >,
// &, U+2028), and for a sharded build's policy bundle.
func TestBuildEncodedSameBytes(t *testing.T) {
	odd := filepath.Join(t.TempDir(), "odd.json")
	if err := os.WriteFile(odd, []byte(`{"grants": [
		{"subject": "principal:<a&b>", "tenant": "t\u2028<x>", "pack_id": "mail", "capabilities": ["verb.exec.read", "verb.exec.write"]},
		{"subject": "role:r&d", "pack_id": "ledger", "verb_key": "balance", "capabilities": ["verb.exec.read"]}
	]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Checked([]string{"../testdata/packs"}, []string{"../testdata/grants/acme.json", odd, "../testdata/grants/defaults.json"})
	if err != nil {
		t.Fatal(err)
	}
	const keys = "../testdata/keys/"
	for _, shards := range []int{0, 4} {
		for _, revision := range []string{"", "r1"} {
			for name, signing := range map[string]*bundles.Signing{
				"unsigned": nil,
				"RS256":    {KeyFile: keys + "rsa.key", KeyID: "hcp"},
				"HS256":    {KeyFile: keys + "hmac.secret", Algorithm: "HS256"},
			} {
				t.Run(name+" "+revision, func(t *testing.T) {
					b, _, err := assemble(m, revision, false, shards)
					if err != nil {
						t.Fatal(err)
					}
					want, err := bundles.Build(b, signing)
					if err != nil {
						t.Fatal(err)
					}
					b, data, err := compileToWrite(m, revision, shards)
					if err != nil {
						t.Fatal(err)
					}
					got, err := encoded.Build(b, signing, data)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want) {
						t.Errorf("%d shards: the bundle built with encoded grant tables differs from the bundle built as it is (%d and %d bytes)", shards, len(got), len(want))
					}
				})
			}
		}
	}
}
