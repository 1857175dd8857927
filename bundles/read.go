package bundles

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/regolimit"
)

// Verification says how Read checks a bundle's signature, as an OPA
// sidecar does with one entry of its `keys` and a `signing` block that
// names it.
type Verification struct {
	// KeyFile holds the PEM public key or certificate (RSA or ECDSA) or,
	// for HS256, the shared secret (the file's bytes exactly).
	KeyFile string
	// KeyID names the key; "" means DefaultKeyID. As in OPA's signing
	// keyid, it selects the key: the JWT's own kid is not consulted.
	KeyID string
	// Algorithm is one of Algorithms; "" means the key's own: RS256 for
	// an RSA key, ES256, ES384 or ES512 by the curve of an ECDSA key. It
	// is never taken from the bundle, and HS256 must be given.
	Algorithm string
}

// keyID is the name the key is configured under.
func (v *Verification) keyID() string {
	if v.KeyID == "" {
		return DefaultKeyID
	}
	return v.KeyID
}

// config checks the key file and returns OPA's verification
// configuration, which requires a signature (OPA ≥ 1.21.3).
func (v *Verification) config() (*bundle.VerificationConfig, error) {
	if v.Algorithm != "" {
		if err := checkAlgorithm(v.Algorithm); err != nil {
			return nil, fmt.Errorf("verification %w", err)
		}
	}
	data, err := readKey(v.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("verification key %s: %w", v.KeyFile, err)
	}
	key, alg, err := verificationKey(data, v.Algorithm)
	if err != nil {
		return nil, fmt.Errorf("verification key %s: %w", v.KeyFile, err)
	}
	keys := map[string]*bundle.KeyConfig{v.keyID(): {Key: key, Algorithm: alg}}
	return bundle.NewVerificationConfig(keys, v.keyID(), "", nil), nil
}

// verificationKey checks a key file's bytes against alg ("" for the key's
// own) and returns the key as OPA's verifier reads it, with the algorithm.
func verificationKey(data []byte, alg string) (string, string, error) {
	if isHMAC(alg) {
		secret, err := sharedSecret(data)
		return string(secret), alg, err
	}
	text, public, err := publicKey(data)
	if err != nil {
		return "", "", err
	}
	if alg == "" {
		if alg, err = algorithmFor(public); err != nil {
			return "", "", err
		}
	}
	if err := fits(alg, public); err != nil {
		return "", "", err
	}
	return text, alg, nil
}

// Read reads the bundle at path, a .tar.gz file or a bundle directory,
// with OPA's bundle reader, within lim: a bundle over them is refused
// with a *LimitError, in memory bounded by them. With v it verifies the
// signature first and refuses a bundle that is unsigned, signed by
// another key, or holds a file that differs from what was signed or was
// not signed at all; with v nil it checks no signature. It refuses what
// an OPA sidecar would read differently from the embedded evaluator
// (docs/bundles.md, "What a sidecar would read differently"): a
// WebAssembly module, or a manifest's wasm entry; OPA's reader
// itself refuses a module or data outside the manifest's roots. Every
// error names path.
func Read(path string, v *Verification, lim Limits) (*bundle.Bundle, error) {
	cfg, err := v.verificationConfig()
	if err != nil {
		return nil, err
	}
	loader, closeFile, err := open(path, &budget{path: path, lim: lim})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", printable.LineStart(path), err)
	}
	defer closeFile()
	return readWith(path, loader, cfg, lim)
}

// ReadTarball reads, as Read reads a .tar.gz file, the bundle tarball
// data, which came from elsewhere (a registry): every error names name.
// Checking the bytes held, not a file read again, means the bytes checked
// are the bytes sent or written.
func ReadTarball(name string, data []byte, v *Verification, lim Limits) (*bundle.Bundle, error) {
	cfg, err := v.verificationConfig()
	if err != nil {
		return nil, err
	}
	return readWith(name, tarballFiles(bytes.NewReader(data), &budget{path: name, lim: lim}), cfg, lim)
}

// verificationConfig is v's configuration, nil when v is nil (no
// signature is checked).
func (v *Verification) verificationConfig() (*bundle.VerificationConfig, error) {
	if v == nil {
		return nil, nil
	}
	return v.config()
}

// readWith reads the bundle named name from loader with OPA's reader,
// verifying it with cfg unless cfg is nil.
func readWith(name string, loader bundle.DirectoryLoader, cfg *bundle.VerificationConfig, lim Limits) (*bundle.Bundle, error) {
	reader := bundle.NewCustomReader(loader).WithRegoVersion(ast.RegoV1)
	if cfg == nil {
		reader = reader.WithSkipBundleVerification(true)
	} else {
		reader = reader.WithBundleVerificationConfig(cfg)
	}
	b, err := reader.WithSizeLimitBytes(lim.FileBytes).Read()
	if over := (*LimitError)(nil); errors.As(err, &over) {
		return nil, over
	}
	if bad := (*DataError)(nil); errors.As(err, &bad) {
		return nil, bad
	}
	if err != nil {
		return nil, refused(name, err)
	}
	if err := checkBodies(name, &b); err != nil {
		return nil, err
	}
	if err := checkWasm(name, &b); err != nil {
		return nil, err
	}
	return &b, nil
}

// checkBodies refuses a bundle with a module body that OPA would take
// too long to compile (regolimit.CheckBodies), naming it inside name.
func checkBodies(name string, b *bundle.Bundle) error {
	for _, m := range b.Modules {
		if m.Parsed == nil {
			continue
		}
		if err := regolimit.CheckBodies(m.Path, m.Parsed); err != nil {
			return problem.InModule(printable.LineStart(name)+": bundle refused", err)
		}
	}
	return nil
}

// refused is Read's error for a bundle that OPA's reader refuses. A module
// that does not parse is named inside the bundle at its line and column
// ("b.tar.gz: bundle refused: hcp/authz/gate.rego:4:4: ..."), one problem a
// line, without the source lines OPA quotes.
func refused(path string, err error) error {
	var errs problem.Errors
	errs.Merge("", problem.OPAErrors("", err))
	var out problem.Errors
	for _, e := range errs {
		if e.File == "" {
			p := out.Add(path, problem.Pos{}, "bundle refused: %s", e.Msg)
			if strings.Contains(e.Msg, "failed to verify JWT signature") {
				p.Hint = wrongKeyHint
			}
			continue
		}
		out = append(out, problem.InModule(printable.LineStart(path)+": bundle refused", e))
	}
	return out.Err()
}

// wrongKeyHint is the hint under a signature that the key given does not
// verify: the usual cause is a key other than the signer's, and a sidecar
// that finds its key by id is where the id can be wrong.
const wrongKeyHint = "the signature does not verify with this key: check that it is the public half of the key that signed the bundle (and that key's algorithm), and that the key id names it where a sidecar is configured (signing.keyid, or opa run --verification-key-id)"

// ReadDecisionBundle reads, as Read does, a bundle to decide with: one
// that holds the hcp.authz decision library, under a manifest whose roots
// are Roots (or a sharded build's PolicyRoots), no more and no fewer (a sidecar would refuse the runtime's
// bundle beside wider ones), and whose list of sources is the one its
// manifest names, when it names one (checkProvenance); or a sharded
// build's shard, as checkShard checks it. Anything else is refused,
// naming path.
func ReadDecisionBundle(path string, v *Verification, lim Limits) (*bundle.Bundle, error) {
	return decisionBundle(path)(Read(path, v, lim))
}

// ReadDecisionTarball reads, as ReadTarball does, a bundle to decide
// with, as ReadDecisionBundle checks it.
func ReadDecisionTarball(name string, data []byte, v *Verification, lim Limits) (*bundle.Bundle, error) {
	return decisionBundle(name)(ReadTarball(name, data, v, lim))
}

// decisionBundle passes on a bundle read that holds the decision library,
// and refuses, naming name, one that does not.
func decisionBundle(name string) func(*bundle.Bundle, error) (*bundle.Bundle, error) {
	return func(b *bundle.Bundle, err error) (*bundle.Bundle, error) {
		if err != nil {
			return nil, err
		}
		if len(b.Modules) == 0 && isShardRoots(b) {
			// A shard of a sharded build: data alone (docs/fleet.md).
			if err := checkShard(name, b); err != nil {
				return nil, err
			}
			return b, nil
		}
		if !hasLibrary(b) {
			return nil, fmt.Errorf("%s: not a bundle hcp-rego built: no hcp.authz decision library", printable.LineStart(name))
		}
		if err := checkOurRoots(name, b); err != nil {
			return nil, err
		}
		if err := checkProvenance(name, b); err != nil {
			return nil, err
		}
		return b, nil
	}
}

// hasLibrary reports whether b holds the decision library.
func hasLibrary(b *bundle.Bundle) bool {
	library := ast.MustParseRef("data.hcp.authz")
	for _, m := range b.Modules {
		if m.Parsed != nil && m.Parsed.Package.Path.Equal(library) {
			return true
		}
	}
	return false
}

// open returns the loader for a bundle file or directory, which reads its
// files through b, and what closes it.
func open(path string, b *budget) (bundle.DirectoryLoader, func(), error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, problem.Pathless(err)
	}
	if info.IsDir() {
		return folderFiles(path, b), func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, problem.Pathless(err)
	}
	return tarballFiles(f, b), func() { f.Close() }, nil
}
