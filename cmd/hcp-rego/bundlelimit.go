package main

import (
	"github.com/spf13/pflag"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// bundleLimit is the --max-bundle-bytes flag of a command that reads a
// bundle (eval --bundle, permissions --bundle, pull, push, replay
// --bundle): the most the bundle may hold uncompressed, in all and in one
// file, and a twelfth of it JSON values in its data files and a 256th of
// it terms in its Rego modules (bundles.LimitsOf; docs/bundles.md,
// "Reading limits").
type bundleLimit struct{ sizeValue }

// raiseBundles is what a refusal for want of a bundle's limits says last.
const raiseBundles = "--max-bundle-bytes raises it"

const (
	minBundleLimit = 1 << 20
	maxBundleLimit = 1 << 40
)

// addBundleLimitFlag adds --max-bundle-bytes to f, read into l.
func addBundleLimitFlag(f *pflag.FlagSet, l *bundleLimit) {
	l.bytes = bundles.DefaultLimits.TotalBytes
	l.sizeRange = sizeRange{min: minBundleLimit, max: maxBundleLimit, maxText: "1TiB", example: l.bytes}
	f.Var(l, "max-bundle-bytes", "read at most this much of the bundle, uncompressed, in all and in one file, a twelfth of it JSON values and a 256th of it Rego terms, such as 1GiB (raise it past 1,000,000 grants or 10,000 packs)")
}

// limits are the bundle limits the flag sets.
func (l *bundleLimit) limits() bundles.Limits {
	if !l.set {
		return bundles.DefaultLimits
	}
	return bundles.LimitsOf(l.bytes)
}
