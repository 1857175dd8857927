package bundles_test

import (
	"bytes"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
)

// TestBuildEncodedSameBytes holds what `hcp-rego build` writes, with the
// grant tables encoded once (compile.CompileToWrite and
// bundles.BuildEncoded), to the bytes of compiling and building the
// bundle as it is (compile.Compile and bundles.Build): with the default
// revision and a given one, unsigned and signed, and with grants whose
// subjects and tenants JSON escapes (<, >, &, U+2028).
func TestBuildEncodedSameBytes(t *testing.T) {
	odd := writeTemp(t, "odd.json", []byte(`{"grants": [
		{"subject": "principal:<a&b>", "tenant": "t\u2028<x>", "pack_id": "mail", "capabilities": ["verb.exec.read", "verb.exec.write"]},
		{"subject": "role:r&d", "pack_id": "ledger", "verb_key": "balance", "capabilities": ["verb.exec.read"]}
	]}`))
	m, err := compile.Checked([]string{"../testdata/packs"}, []string{"../testdata/grants/acme.json", odd, "../testdata/grants/defaults.json"})
	if err != nil {
		t.Fatal(err)
	}
	for _, revision := range []string{"", "r1"} {
		for name, signing := range map[string]*bundles.Signing{
			"unsigned": nil,
			"RS256":    {KeyFile: keys + "rsa.key", KeyID: "hcp"},
			"HS256":    {KeyFile: keys + "hmac.secret", Algorithm: "HS256"},
		} {
			t.Run(name+" "+revision, func(t *testing.T) {
				b, err := compile.Compile(m, revision)
				if err != nil {
					t.Fatal(err)
				}
				want, err := bundles.Build(b, signing)
				if err != nil {
					t.Fatal(err)
				}
				b, encoded, err := compile.CompileToWrite(m, revision)
				if err != nil {
					t.Fatal(err)
				}
				got, err := bundles.BuildEncoded(b, signing, encoded)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("the bundle built with encoded grant tables differs from the bundle built as it is (%d and %d bytes)", len(got), len(want))
				}
			})
		}
	}
}
