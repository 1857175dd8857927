package main

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// bundleLimit is the --max-bundle-bytes flag of a command that reads a
// bundle (eval --bundle, pull, replay --bundle): the most the
// bundle may hold uncompressed, in all and in one file, and a twelfth of
// it JSON values in its data files and a 256th of it terms in its Rego
// modules (bundles.LimitsOf; SPEC §5).
type bundleLimit struct {
	limits bundles.Limits
	set    bool
}

// addBundleLimitFlag adds --max-bundle-bytes to f, read into l.
func addBundleLimitFlag(f *pflag.FlagSet, l *bundleLimit) {
	l.limits = bundles.DefaultLimits
	f.Var(l, "max-bundle-bytes", "read at most this much of the bundle, uncompressed, in all and in one file, a twelfth of it JSON values and a 256th of it Rego terms, such as 1GiB (raise it past 1,000,000 grants or 10,000 packs)")
}

func (l *bundleLimit) String() string { return sizeText(l.limits.TotalBytes) }

func (l *bundleLimit) Type() string { return "size" }

// Set reads a size: a number of bytes, or of KiB, MiB or GiB.
func (l *bundleLimit) Set(s string) error {
	switch {
	case s == "":
		return errEmptyValue
	case l.set:
		return errGivenTwice
	}
	m := sizePattern.FindStringSubmatch(s)
	if m == nil {
		return fmt.Errorf("%q: want a size such as 268435456, 256MiB or 1GiB", s)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	total := n << sizeShift[m[2]]
	if err != nil || total>>sizeShift[m[2]] != n || total < minBundleLimit || total > maxBundleLimit {
		return fmt.Errorf("%q: want a size from 1MiB to 1TiB", s)
	}
	l.limits, l.set = bundles.LimitsOf(total), true
	return nil
}

var sizePattern = regexp.MustCompile(`^([0-9]{1,19})(|KiB|MiB|GiB)$`)

var sizeShift = map[string]uint{"": 0, "KiB": 10, "MiB": 20, "GiB": 30}

const (
	minBundleLimit = 1 << 20
	maxBundleLimit = 1 << 40
)

// sizeText writes a size as Set reads it, in the largest unit it is a
// whole number of.
func sizeText(n int64) string {
	for _, unit := range []string{"GiB", "MiB", "KiB"} {
		if shift := sizeShift[unit]; n != 0 && n%(1<<shift) == 0 {
			return fmt.Sprintf("%d%s", n>>shift, unit)
		}
	}
	return strconv.FormatInt(n, 10)
}

// hint adds to a bundle's *bundles.LimitError how to raise the limit.
func (l *bundleLimit) hint(err error) error {
	if over := (*bundles.LimitError)(nil); errors.As(err, &over) {
		return fmt.Errorf("%w; --max-bundle-bytes raises it", err)
	}
	return err
}
