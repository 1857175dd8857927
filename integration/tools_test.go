package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
)

// TestRunVerifiesBundleFile starts `opa run --server --bundle FILE` with a
// verification key: OPA serves a bundle signed by that key and refuses to
// start on one that is unsigned or has one module byte changed, as
// bundles.Read refuses it.
func TestRunVerifiesBundleFile(t *testing.T) {
	t.Parallel()
	m := exampleModel(t, acme, defaults)
	rsa := buildFile(t, m, "", &bundles.Signing{KeyFile: keys + "rsa.key", KeyID: "hcp"})
	ec := buildFile(t, m, "", &bundles.Signing{KeyFile: keys + "ec.key", Algorithm: "ES256", KeyID: "hcp"})
	tampered := writeFile(t, "tampered.tar.gz", tamperModule(t, readFile(t, rsa), "/hcp/authz/gate.rego"))
	unsigned := buildFile(t, m, "", nil)
	tests := []struct {
		name   string
		bundle string
		key    string
		alg    string
		want   string // "" when OPA must serve it, else its error
	}{
		{"RS256", rsa, "rsa.pub", "RS256", ""},
		{"ES256", ec, "ec.pub", "ES256", ""},
		{"tampered", tampered, "rsa.pub", "RS256", "hcp/authz/gate.rego: digest mismatch"},
		{"unsigned", unsigned, "rsa.pub", "RS256", "bundle missing .signatures.json file"},
		{"other key", rsa, "other-rsa.pub", "RS256", "failed to verify JWT signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := startOPA(t, "--bundle", tt.bundle, "--verification-key", keys+tt.key,
				"--verification-key-id", "hcp", "--signing-alg", tt.alg)
			_, readErr := bundles.Read(tt.bundle, &bundles.Verification{KeyFile: keys + tt.key, KeyID: "hcp", Algorithm: tt.alg}, bundles.DefaultLimits)
			if tt.want == "" {
				s.waitHealthy(t)
				if code := s.code(t, `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "ledger", "verb_key": "balance", "owner": "bob"}`); code != "allowed" {
					t.Errorf("decision %q, want allowed", code)
				}
				if readErr != nil {
					t.Errorf("bundles.Read refused what OPA serves: %v", readErr)
				}
				return
			}
			<-s.done
			if s.err == nil || !strings.Contains(s.logs.String(), tt.want) {
				t.Errorf("OPA ended with %v, want an error %q:\n%s", s.err, tt.want, s.logs)
			}
			if readErr == nil || !strings.Contains(readErr.Error(), tt.want) {
				t.Errorf("bundles.Read: %v, want an error %q", readErr, tt.want)
			}
		})
	}
}

// TestOPAToolsAcceptModules runs `opa check --strict` and `opa fmt` on every
// module of the bundle, as a compiled folder and as a .tar.gz, beside the
// runtime bundle, and `opa build` on the folder.
func TestOPAToolsAcceptModules(t *testing.T) {
	t.Parallel()
	m := exampleModel(t, acme, defaults)
	tarball := buildFile(t, m, "", nil)
	b, err := compile.Compile(m, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "hcp")
	if err := bundles.WriteDir(dir, b); err != nil {
		t.Fatal(err)
	}
	commands := [][]string{
		{"check", "--strict", "--bundle", dir, extDir},
		{"check", "--strict", "--bundle", tarball},
		{"fmt", "--list", "--fail", dir, extDir},
		{"build", "--bundle", dir, "-o", filepath.Join(t.TempDir(), "rebuilt.tar.gz")},
	}
	for _, args := range commands {
		out, err := runOPA(t, args...)
		if err != nil || out != "" {
			t.Errorf("opa %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// The checks can fail: fmt lists a module that is not formatted, and
	// check --strict refuses an unused variable.
	sloppy := writeFile(t, "sloppy.rego", []byte("package x\nallow if { y := 1; true }\n"))
	if out, err := runOPA(t, "fmt", "--list", "--fail", sloppy); err == nil || !strings.Contains(out, sloppy) {
		t.Errorf("opa fmt --list --fail on an unformatted module: %v\n%s", err, out)
	}
	if out, err := runOPA(t, "check", "--strict", sloppy); err == nil || !strings.Contains(out, "assigned var y unused") {
		t.Errorf("opa check --strict on an unused variable: %v\n%s", err, out)
	}
}
