package bundles

import (
	"fmt"
	"os"

	"github.com/open-policy-agent/opa/v1/bundle"
)

// Signing says how to sign a bundle with OPA's bundle signing: a JWT in
// .signatures.json over the sha256 of every file, which OPA checks with
// its `keys` and `signing` configuration.
type Signing struct {
	// KeyFile holds a PEM private key or, for HS256, the shared secret
	// (the file's bytes exactly, trailing newline included).
	KeyFile string
	// Algorithm is one of Algorithms; "" means DefaultAlgorithm.
	Algorithm string
	// KeyID is the key id the JWT names (header kid and claim keyid); ""
	// means DefaultKeyID.
	KeyID string
}

// algorithm is the algorithm the signature uses.
func (s *Signing) algorithm() string {
	if s.Algorithm == "" {
		return DefaultAlgorithm
	}
	return s.Algorithm
}

// keyID is the key id the signature names.
func (s *Signing) keyID() string {
	if s.KeyID == "" {
		return DefaultKeyID
	}
	return s.KeyID
}

// config checks the algorithm and the key file and returns OPA's signing
// configuration, with the key given as text so that OPA never takes a
// missing path for the key itself.
func (s *Signing) config() (*bundle.SigningConfig, error) {
	alg := s.algorithm()
	if err := checkAlgorithm(alg); err != nil {
		return nil, fmt.Errorf("signing %w", err)
	}
	data, err := readKey(s.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", s.KeyFile, err)
	}
	key, err := signingKey(data, alg)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", s.KeyFile, err)
	}
	return bundle.NewSigningConfig(key, alg, ""), nil
}

// signingKey checks a key file's bytes against alg and returns the key as
// OPA's signer reads it.
func signingKey(data []byte, alg string) (string, error) {
	if isHMAC(alg) {
		secret, err := sharedSecret(data)
		if err != nil {
			return "", err
		}
		// OPA's signer reads a key that names an existing file from that
		// file; a secret must be the secret, never a path to one.
		if _, err := os.Stat(string(secret)); err == nil {
			return "", fmt.Errorf("the secret names a file; the file must hold the secret itself")
		}
		return string(secret), nil
	}
	text, public, err := privateKey(data)
	if err != nil {
		return "", err
	}
	if err := fits(alg, public); err != nil {
		return "", err
	}
	return text, nil
}

// Sign adds OPA's signature of b to b.Signatures. It signs the files as
// Encode writes them: modules by path, data.json and .manifest.
//
// RS* and HS256 signatures are deterministic, so a signed build is
// byte-identical too; PS256 and ES* signatures are randomized by their
// algorithms, so two signed builds differ in .signatures.json alone.
func (s *Signing) Sign(b *bundle.Bundle) error {
	cfg, err := s.config()
	if err != nil {
		return err
	}
	if err := b.GenerateSignature(cfg, s.keyID(), true); err != nil {
		return fmt.Errorf("sign bundle with %s: %w", s.KeyFile, err)
	}
	return nil
}
