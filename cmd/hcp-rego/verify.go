package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// addVerificationFlags adds the flags that verify a bundle's signature,
// the same for every command that reads a bundle (eval, pull, replay).
func addVerificationFlags(cmd *cobra.Command, v *bundles.Verification) {
	f := cmd.Flags()
	f.StringVar(&v.KeyFile, "verification-key", "", "verify the bundle's signature with this PEM public key (or HS256 secret file)")
	emptyHint(cmd, "verification-key", "the bundle would go unverified")
	f.StringVar(&v.KeyID, "verification-key-id", "", `the key id to verify with (default "default")`)
	f.StringVar(&v.Algorithm, "verification-alg", "", "the signature algorithm (default: the key's own)")
}

// checkVerification refuses a key id or an algorithm given without a key,
// which would otherwise leave the bundle unverified without a word.
func checkVerification(v bundles.Verification) error {
	if v.KeyFile == "" && (v.KeyID != "" || v.Algorithm != "") {
		return errors.New("--verification-key-id and --verification-alg need --verification-key")
	}
	return nil
}
