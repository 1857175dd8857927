package main

import (
	"github.com/spf13/pflag"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/document"
)

// sourceLimit is the --max-source-bytes flag of a command that reads
// packs and grant files: the most bytes they may hold in all, and a 16th
// of that JSON values (compile.Limits, document.SourceLimits;
// docs/commands.md#limits). The default holds 1,000,000 grants in one file
// or many and 10,000 packs.
type sourceLimit struct{ sizeValue }

// raiseSources is what a refusal for want of the run's bytes or values
// says last, once in the run.
const raiseSources = "--max-source-bytes raises it"

const (
	minSourceLimit = 1 << 20
	maxSourceLimit = 1 << 40
)

// addSourceLimitFlag adds --max-source-bytes to f, read into l.
func addSourceLimitFlag(f *pflag.FlagSet, l *sourceLimit) {
	l.bytes = document.DefaultSourceBytes
	l.sizeRange = sizeRange{min: minSourceLimit, max: maxSourceLimit, maxText: sizeText(maxSourceLimit), example: l.bytes}
	f.Var(l, "max-source-bytes", "read at most this much of the packs and grant files in all, and a 16th of it JSON values, such as 1GiB (raise it past a million grants)")
}

// limits are the compile limits the flag sets.
func (l *sourceLimit) limits() compile.Limits {
	return compile.Limits{Bytes: l.bytes, Hint: raiseSources}
}
