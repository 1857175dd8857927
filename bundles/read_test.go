package bundles_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
	"github.com/hcp-rego/hcp-rego/rego/library"
)

// Tamper returns a copy of a bundle tarball with edit applied to the
// members; a test helper, never how a bundle is written.
func Tamper(t *testing.T, data []byte, edit func(entries []entry) []entry) []byte {
	t.Helper()
	_, entries := untar(t, data)
	entries = edit(entries)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		e.hdr.Size = int64(len(e.body))
		if err := tw.WriteHeader(e.hdr); err != nil {
			t.Fatal(err)
		}
		tw.Write(e.body)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// flipByte changes one byte of the named member.
func flipByte(name string) func([]entry) []entry {
	return func(entries []entry) []entry {
		for i, e := range entries {
			if e.hdr.Name == name {
				body := bytes.Clone(e.body)
				body[len(body)/2] ^= 0x01
				entries[i].body = body
			}
		}
		return entries
	}
}

// replace replaces old with new in the named member, once.
func replace(name, old, new string) func([]entry) []entry {
	return func(entries []entry) []entry {
		for i, e := range entries {
			if e.hdr.Name == name {
				entries[i].body = bytes.Replace(e.body, []byte(old), []byte(new), 1)
			}
		}
		return entries
	}
}

func TestReadVerifies(t *testing.T) {
	rsa := &bundles.Signing{KeyFile: keys + "rsa.key", KeyID: "hcp"}
	signed := build(t, "", rsa)
	tests := []struct {
		name   string
		bundle []byte
		v      *bundles.Verification
		want   string // "" for success, else the error's tail after the path
	}{
		{"RS256 signed, right key", signed, &bundles.Verification{KeyFile: keys + "rsa.pub", KeyID: "hcp"}, ""},
		{"key id is the configured name", signed, &bundles.Verification{KeyFile: keys + "rsa.pub"}, ""},
		{"ES256 from the key's curve", build(t, "", &bundles.Signing{KeyFile: keys + "ec.key", Algorithm: "ES256"}), &bundles.Verification{KeyFile: keys + "ec.pub"}, ""},
		{"PS256 given", build(t, "", &bundles.Signing{KeyFile: keys + "rsa.key", Algorithm: "PS256"}), &bundles.Verification{KeyFile: keys + "rsa.pub", Algorithm: "PS256"}, ""},
		{"HS256 given", build(t, "", &bundles.Signing{KeyFile: keys + "hmac.secret", Algorithm: "HS256"}), &bundles.Verification{KeyFile: keys + "hmac.secret", Algorithm: "HS256"}, ""},
		{"signed, no verification asked", signed, nil, ""},
		{"unsigned, no verification asked", build(t, "", nil), nil, ""},
		{"unsigned", build(t, "", nil), &bundles.Verification{KeyFile: keys + "rsa.pub"}, "bundle refused: bundle missing .signatures.json file"},
		{"other key", signed, &bundles.Verification{KeyFile: keys + "other-rsa.pub"}, "bundle refused: failed to verify JWT signature: crypto/rsa: verification error"},
		{"one module byte changed", Tamper(t, signed, flipByte("/hcp/authz/authz.rego")), &bundles.Verification{KeyFile: keys + "rsa.pub"}, "bundle refused: hcp/authz/authz.rego: digest mismatch"},
		{"one library module byte changed", Tamper(t, signed, flipByte("/hcp/authz/gate.rego")), &bundles.Verification{KeyFile: keys + "rsa.pub"}, "bundle refused: hcp/authz/gate.rego: digest mismatch"},
		{"data changed", Tamper(t, signed, replace("/data.json", `"role:member"`, `"role:guest"`)), &bundles.Verification{KeyFile: keys + "rsa.pub"}, "bundle refused: data.json: digest mismatch"},
		{"manifest changed", Tamper(t, signed, replace("/.manifest", `"hcp_grants"`, `"hcp"`)), &bundles.Verification{KeyFile: keys + "rsa.pub"}, "bundle refused: .manifest: digest mismatch"},
		{"file added", Tamper(t, signed, func(es []entry) []entry {
			return append(es, entry{&tar.Header{Name: "/hcp/authz/zz.rego", Mode: 0o600, Typeflag: tar.TypeReg}, []byte("package hcp.authz\n\nallow := true\n")})
		}), &bundles.Verification{KeyFile: keys + "rsa.pub"}, "bundle refused: file hcp/authz/zz.rego not included in bundle signature"},
		{"module removed", Tamper(t, signed, func(es []entry) []entry {
			return slicesDelete(es, "/hcp/authz/land.rego")
		}), &bundles.Verification{KeyFile: keys + "rsa.pub"}, "bundle refused: file(s) [hcp/authz/land.rego] specified in bundle signatures but not found in the target bundle"},
		{"signature removed", Tamper(t, signed, func(es []entry) []entry {
			return slicesDelete(es, "/.signatures.json")
		}), &bundles.Verification{KeyFile: keys + "rsa.pub"}, "bundle refused: bundle missing .signatures.json file"},
		{"algorithm confusion", confused(t), &bundles.Verification{KeyFile: keys + "rsa.pub"}, "bundle refused: failed to verify JWT signature: crypto/rsa: verification error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "hcp.tar.gz", tt.bundle)
			b, err := bundles.Read(path, tt.v, bundles.DefaultLimits)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want == "":
				if len(b.Modules) != len(library.Modules()) || b.Manifest.Revision == "" {
					t.Errorf("read %d modules, revision %q", len(b.Modules), b.Manifest.Revision)
				}
			case err == nil:
				t.Fatalf("accepted, want %q", tt.want)
			case !strings.HasPrefix(err.Error(), path+": "+tt.want):
				t.Errorf("error %v\nwant %s: %s...", err, path, tt.want)
			}
		})
	}
}

// confused is a bundle signed with HS256 using the RSA public key's PEM
// text as the secret: what an attacker who has the public key can make.
// A verifier that took the algorithm from the token would accept it.
func confused(t *testing.T) []byte {
	t.Helper()
	pub, _ := os.ReadFile(keys + "rsa.pub")
	b, err := compile.Compile(exampleModel(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.GenerateSignature(bundle.NewSigningConfig(string(pub), "HS256", ""), "default", true); err != nil {
		t.Fatal(err)
	}
	data, err := bundles.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// gunzip returns the tar inside a .tar.gz.
func gunzip(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

func slicesDelete(es []entry, name string) []entry {
	var out []entry
	for _, e := range es {
		if e.hdr.Name != name {
			out = append(out, e)
		}
	}
	return out
}

func TestReadBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := build(t, "", nil)
	files := map[string][]byte{
		"empty.tar.gz":     {},
		"text.tar.gz":      []byte("not a bundle\n"),
		"truncated.tar.gz": good[:len(good)/2],
		"plain.tar":        gunzip(t, good),
		"bad-rego.tar.gz": Tamper(t, good, func(es []entry) []entry {
			return append(es, entry{&tar.Header{Name: "/hcp/authz/bad.rego", Mode: 0o600, Typeflag: tar.TypeReg}, []byte("package hcp.authz\n\nallow if {")})
		}),
	}
	want := map[string]string{
		"missing.tar.gz":   "no such file or directory",
		"empty.tar.gz":     "bundle refused: bundle read failed: archive read failed: EOF",
		"text.tar.gz":      "bundle refused: bundle read failed: archive read failed: gzip: invalid header",
		"truncated.tar.gz": "bundle refused: bundle read failed: ",
		"plain.tar":        "bundle refused: bundle read failed: archive read failed: gzip: invalid header",
		"bad-rego.tar.gz":  "bundle refused: hcp/authz/bad.rego:3:10: unexpected eof token",
	}
	for name, data := range files {
		os.WriteFile(dir+"/"+name, data, 0o644)
	}
	for name, tail := range want {
		t.Run(name, func(t *testing.T) {
			path := dir + "/" + name
			_, err := bundles.Read(path, nil, bundles.DefaultLimits)
			if err == nil || !strings.HasPrefix(err.Error(), path+": "+tail) {
				t.Errorf("error %v\nwant %s: %s...", err, path, tail)
			}
		})
	}
}

func TestReadBadVerificationKeys(t *testing.T) {
	path := writeTemp(t, "hcp.tar.gz", build(t, "", &bundles.Signing{KeyFile: keys + "rsa.key"}))
	tests := []struct {
		v    bundles.Verification
		want string
	}{
		{bundles.Verification{KeyFile: keys + "nope.pub"}, "verification key " + keys + "nope.pub: no such file or directory"},
		{bundles.Verification{KeyFile: keys + "rsa.key"}, "verification key " + keys + "rsa.key: a PEM private key, not a public key"},
		{bundles.Verification{KeyFile: keys + "hmac.secret"}, "verification key " + keys + "hmac.secret: not a PEM public key (for a shared secret, give the algorithm HS256)"},
		{bundles.Verification{KeyFile: keys + "rsa.pub", Algorithm: "HS256"}, "verification key " + keys + "rsa.pub: a PEM public key, but HS256 takes a shared secret"},
		{bundles.Verification{KeyFile: keys + "rsa.pub", Algorithm: "ES256"}, "verification key " + keys + "rsa.pub: an RSA key, which does not sign ES256"},
		{bundles.Verification{KeyFile: keys + "rsa.pub", Algorithm: "none"}, `verification algorithm "none": want one of RS256, RS384, RS512, PS256, ES256, ES384, ES512, HS256`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := bundles.Read(path, &tt.v, bundles.DefaultLimits)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestReadDecidesAsAssembled evaluates a bundle read back from a signed
// tarball and from a directory against the bundle as assembled.
func TestReadDecidesAsAssembled(t *testing.T) {
	ctx := context.Background()
	b, err := compile.Compile(exampleModel(t), "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() + "/out"
	if err := bundles.WriteDir(dir, b); err != nil {
		t.Fatal(err)
	}
	fromTar, err := bundles.Read(writeTemp(t, "b.tar.gz", build(t, "", &bundles.Signing{KeyFile: keys + "ec.key", Algorithm: "ES256"})), &bundles.Verification{KeyFile: keys + "ec.pub"}, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	fromDir, err := bundles.Read(dir, nil, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	input := map[string]any{
		"principal": map[string]any{"id": "alice", "roles": []any{"member"}},
		"pack_id":   "ledger", "verb_key": "transfer", "owner": "alice",
		"args": map[string]any{"amount": "2.80", "payee": "demo-transit"},
	}
	decide := func(b *bundle.Bundle) map[string]any {
		ev, err := hcprego.New(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ev.Decide(ctx, input)
		if err != nil {
			t.Fatal(err)
		}
		return res.Decision.Doc
	}
	want := decide(b)
	if want["code"] != "confirm_required" {
		t.Fatalf("assembled bundle decides %v", want)
	}
	for name, got := range map[string]map[string]any{"tarball": decide(fromTar), "directory": decide(fromDir)} {
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s decides\n%v\nwant\n%v", name, got, want)
		}
	}
}
