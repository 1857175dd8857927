package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/oci"
	"github.com/hcp-rego/hcp-rego/internal/policy"
)

// packFlags name packs and grant files as every command that reads them
// takes them: PACK_DIR arguments, --grants and --max-source-bytes.
type packFlags struct {
	packs   []string // the PACK_DIR arguments
	grants  []string
	sources sourceLimit
}

// addPackFlags adds --grants and --max-source-bytes to f, read into p.
func addPackFlags(f *pflag.FlagSet, p *packFlags) {
	f.StringArrayVar(&p.grants, "grants", nil, "a grant file (repeatable; grants add up)")
	addSourceLimitFlag(f, &p.sources)
}

// checked reads the packs and grant files within --max-source-bytes and
// checks them.
func (p *packFlags) checked() (*compile.Model, error) {
	return p.sources.limits().Checked(p.packs, p.grants)
}

// policyFlags name the policy a command decides with (eval, permissions,
// replay): packs and grant files, compiled, or --bundle, read as built
// as bundleFlags say (policy.Source).
type policyFlags struct {
	packFlags
	bundles bundleArg
	bundleFlags
}

// bundleArg is --bundle's value: the bundles named, a policy bundle and
// the shards of its build that a sidecar loads beside it, or the build's
// folder (docs/fleet.md#tenant-shards-a-fleet-past-one-bundle). It is
// repeatable.
type bundleArg []string

func (b *bundleArg) Set(s string) error { *b = append(*b, s); return nil }

func (b *bundleArg) String() string { return strings.Join(*b, ",") }

func (b *bundleArg) Type() string { return "stringArray" }

// addPolicyFlags adds to cmd the flags that name its policy, read into p;
// bundleUsage says what --bundle does.
func addPolicyFlags(cmd *cobra.Command, p *policyFlags, bundleUsage string) {
	addPackFlags(cmd.Flags(), &p.packFlags)
	cmd.Flags().Var(&p.bundles, "bundle", bundleUsage)
	addBundleFlags(cmd, &p.bundleFlags)
}

// mixed reports whether the flags name both bundles and packs or grants.
func (p *policyFlags) mixed() bool {
	return len(p.bundles) > 0 && (len(p.packs) > 0 || len(p.grants) > 0)
}

// checkBundleFlags refuses a flag that says how to read a bundle when no
// bundle is read, and a key id or an algorithm without a key: each would
// otherwise go unused without a word, the bundle unverified.
func (p *policyFlags) checkBundleFlags() error {
	if err := checkVerification(p.verify); err != nil {
		return err
	}
	switch {
	case len(p.bundles) == 0 && p.plainHTTP:
		return errors.New("--plain-http needs --bundle REF")
	case len(p.bundles) == 0 && p.verify.KeyFile != "":
		return errors.New("--verification-key needs --bundle")
	case len(p.bundles) == 0 && p.limit.set:
		return errors.New("--max-bundle-bytes needs --bundle")
	}
	return nil
}

// source is the policy the flags name, with the runtime's rules ext
// beside it.
func (p *policyFlags) source(ext []string) policy.Source {
	return policy.Source{
		Packs: p.packs, Grants: p.grants, Limits: p.sources.limits(),
		Bundles: p.bundles, Reader: p.reader(),
		Ext: ext,
	}
}

// bundleFlags say how a bundle is read (policy.BundleReader): the
// verification flags, --max-bundle-bytes and, where the bundle may be
// named by an OCI reference, --plain-http.
type bundleFlags struct {
	verify    bundles.Verification
	limit     bundleLimit
	registry  bool
	plainHTTP bool
}

// addBundleFlags adds the verification flags and --max-bundle-bytes to
// cmd, read into b.
func addBundleFlags(cmd *cobra.Command, b *bundleFlags) {
	addVerificationFlags(cmd, &b.verify)
	addBundleLimitFlag(cmd.Flags(), &b.limit)
}

// addRegistryFlag lets the bundle be named by an OCI reference, and adds
// --plain-http to f, read into b; usage says what it does.
func addRegistryFlag(f *pflag.FlagSet, b *bundleFlags, usage string) {
	b.registry = true
	f.BoolVar(&b.plainHTTP, "plain-http", false, usage)
}

// reader reads a bundle as the flags say.
func (b *bundleFlags) reader() policy.BundleReader {
	r := policy.BundleReader{Limits: b.limit.limits(), Hint: raiseBundles}
	if b.verify.KeyFile != "" {
		v := b.verify
		r.Verify = &v
	}
	if b.registry {
		r.Registry = &oci.Remote{PlainHTTP: b.plainHTTP}
	}
	return r
}
