package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/document"
)

// sourceLimit is the --max-source-bytes flag of a command that reads
// packs and grant files: the most bytes they may hold in all, and a 16th
// of that JSON values (compile.Limits, document.SourceLimits; SPEC §5).
// The default holds 1,000,000 grants in one file or many and 10,000
// packs.
type sourceLimit struct {
	bytes int64
	set   bool
}

// raiseSources is what a refusal for want of the run's bytes or values
// says last, once in the run.
const raiseSources = "--max-source-bytes raises it"

// addSourceLimitFlag adds --max-source-bytes to f, read into l.
func addSourceLimitFlag(f *pflag.FlagSet, l *sourceLimit) {
	l.bytes = document.DefaultSourceBytes
	f.Var(l, "max-source-bytes", "read at most this much of the packs and grant files in all, and a 16th of it JSON values, such as 1GiB (raise it past a million grants)")
}

// limits are the compile limits the flag sets.
func (l *sourceLimit) limits() compile.Limits {
	return compile.Limits{Bytes: l.bytes, Hint: raiseSources}
}

func (l *sourceLimit) String() string { return sizeText(l.bytes) }

func (l *sourceLimit) Type() string { return "size" }

// Set reads a size: a number of bytes, or of KiB, MiB or GiB, from 1 MiB
// to 1 TiB.
func (l *sourceLimit) Set(s string) error {
	switch {
	case s == "":
		return errEmptyValue
	case l.set:
		return errGivenTwice
	}
	n, err := parseSize(s, minSourceLimit, maxSourceLimit)
	if err != nil {
		return err
	}
	l.bytes, l.set = n, true
	return nil
}

const (
	minSourceLimit = 1 << 20
	maxSourceLimit = 1 << 40
)

// parseSize reads a size as sizeText writes it, from lo to hi bytes.
func parseSize(s string, lo, hi int64) (int64, error) {
	m := sizePattern.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q: want a size such as 536870912, 512MiB or 1GiB", s)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	size := n << sizeShift[m[2]]
	if err != nil || size>>sizeShift[m[2]] != n || size < lo || size > hi {
		return 0, fmt.Errorf("%q: want a size from %s to %s", s, sizeText(lo), sizeText(hi))
	}
	return size, nil
}
