package bundles

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// algorithms are the signature algorithms a bundle may be signed and
// verified with (docs/bundles.md, "Signing"), as OPA and JWS name them.
var algorithms = []string{"RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "ES512", "HS256"}

// Algorithms returns the signature algorithms a bundle may be signed and
// verified with, as OPA and JWS name them, in a new slice: a caller
// cannot change which ones are taken.
func Algorithms() []string { return slices.Clone(algorithms) }

// DefaultAlgorithm is the signing algorithm when none is given, as in OPA.
const DefaultAlgorithm = "RS256"

// DefaultKeyID is the key id when none is given: the one that OPA's
// `--verification-key-id` assumes.
const DefaultKeyID = "default"

// maxKeyBytes bounds a key file: a PEM key or shared secret is a few KiB.
const maxKeyBytes = 1 << 20

// curveAlgorithms maps an ECDSA curve to the only algorithm it signs.
var curveAlgorithms = map[string]string{"P-256": "ES256", "P-384": "ES384", "P-521": "ES512"}

// checkAlgorithm refuses an algorithm outside algorithms.
func checkAlgorithm(alg string) error {
	if !slices.Contains(algorithms, alg) {
		return fmt.Errorf("algorithm %q: want one of %s", alg, strings.Join(algorithms, ", "))
	}
	return nil
}

func isHMAC(alg string) bool { return strings.HasPrefix(alg, "HS") }

// readKey reads a key file whole, refusing an empty or oversized one.
func readKey(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, problem.Pathless(err)
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if info.Size() > maxKeyBytes {
		return nil, errors.New("larger than a key can be")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, problem.Pathless(err)
	}
	if len(data) == 0 {
		return nil, errors.New("empty")
	}
	return data, nil
}

// sharedSecret checks a key file's bytes as an HMAC secret. A PEM key is
// refused: verifying HS256 with a public key as the secret would let
// anyone who has the public key sign (the JWS algorithm confusion).
func sharedSecret(data []byte) ([]byte, error) {
	if block, _ := pem.Decode(data); block != nil {
		return nil, fmt.Errorf("a PEM %s, but HS256 takes a shared secret", strings.ToLower(block.Type))
	}
	return data, nil
}

// privateKey parses a PEM private key (PKCS #1, PKCS #8 or SEC 1) and
// returns it re-encoded as PEM text with its public half.
func privateKey(data []byte) (string, crypto.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return "", nil, errors.New("not a PEM private key")
	}
	var key any
	var err error
	switch block.Type {
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return "", nil, fmt.Errorf("a PEM %s, not a private key", strings.ToLower(block.Type))
	}
	if err != nil {
		return "", nil, err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return "", nil, fmt.Errorf("unsupported private key type %T", key)
	}
	return string(pem.EncodeToMemory(block)), signer.Public(), nil
}

// publicKey parses a PEM public key (PKIX or PKCS #1) or certificate and
// returns it re-encoded as PEM text with the parsed key.
func publicKey(data []byte) (string, crypto.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return "", nil, errors.New("not a PEM public key (for a shared secret, give the algorithm HS256)")
	}
	var key any
	var err error
	switch block.Type {
	case "PUBLIC KEY":
		key, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		key, err = x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		var cert *x509.Certificate
		if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
			key = cert.PublicKey
		}
	default:
		return "", nil, fmt.Errorf("a PEM %s, not a public key", strings.ToLower(block.Type))
	}
	if err != nil {
		return "", nil, err
	}
	return string(pem.EncodeToMemory(block)), key, nil
}

// algorithmFor is the algorithm a public key verifies when none is given:
// RS256 for RSA, and for ECDSA the one its curve signs.
func algorithmFor(key crypto.PublicKey) (string, error) {
	switch k := key.(type) {
	case *rsa.PublicKey:
		return DefaultAlgorithm, nil
	case *ecdsa.PublicKey:
		if alg, ok := curveAlgorithms[k.Curve.Params().Name]; ok {
			return alg, nil
		}
		return "", fmt.Errorf("ECDSA curve %s is not supported", k.Curve.Params().Name)
	}
	return "", fmt.Errorf("unsupported key type %T", key)
}

// fits refuses a key of the wrong kind for alg: RS and PS take RSA keys,
// and each ES algorithm the ECDSA curve of its size.
func fits(alg string, key crypto.PublicKey) error {
	switch k := key.(type) {
	case *rsa.PublicKey:
		if strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS") {
			return nil
		}
		return fmt.Errorf("an RSA key, which does not sign %s", alg)
	case *ecdsa.PublicKey:
		name := k.Curve.Params().Name
		if curveAlgorithms[name] == alg {
			return nil
		}
		return fmt.Errorf("an ECDSA %s key, which does not sign %s", name, alg)
	}
	return fmt.Errorf("unsupported key type %T", key)
}
