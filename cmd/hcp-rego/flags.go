package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// strictFlags makes every string flag of cmd and its subcommands refuse an
// empty value (an unset shell variable: --bundle "$B", -o=$OUT), which
// would otherwise fall back to a default such as the packs in the current
// folder or an unsigned bundle, and makes every single-valued one refuse
// a second value, which would otherwise silently win.
func strictFlags(cmd *cobra.Command) {
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		empty := errEmptyValue
		if hint := f.Annotations[emptyHintKey]; len(hint) > 0 {
			empty = fmt.Errorf("%w; %s", errEmptyValue, strings.Join(hint, " "))
		}
		switch f.Value.Type() {
		case "string":
			// pflag reads "-o=" as the value "=": an empty value too.
			f.Value = &singleValue{Value: f.Value, empty: empty, equalsIsEmpty: f.Shorthand != ""}
		case "stringArray":
			f.Value = &nonEmptyValue{Value: f.Value, empty: empty}
			if f.DefValue == "[]" {
				f.DefValue = "" // no "(default [])" in the help
			}
		}
	})
	for _, sub := range cmd.Commands() {
		strictFlags(sub)
	}
}

// emptyHint tells the user of flag name what to do instead of giving it
// an empty value, in the message that refuses one.
func emptyHint(cmd *cobra.Command, name, hint string) {
	_ = cmd.Flags().SetAnnotation(name, emptyHintKey, []string{hint})
}

const emptyHintKey = "hcp-rego/empty-hint"

var (
	errEmptyValue = errors.New("empty value")
	errGivenTwice = errors.New("given twice; it takes one value")
)

// singleValue is a string flag that takes one non-empty value.
type singleValue struct {
	pflag.Value
	empty         error
	equalsIsEmpty bool
	set           bool
	// reparsed is true while cobra's __complete completes a command
	// line: it parses the line's flags twice, so each is set twice.
	reparsed bool
}

func (v *singleValue) Set(s string) error {
	switch {
	case s == "" || s == "=" && v.equalsIsEmpty:
		return v.empty
	case v.set && !v.reparsed:
		return errGivenTwice
	}
	v.set = true
	return v.Value.Set(s)
}

// parsedTwice lets every single-valued flag of cmd and its subcommands
// take a value again, for cobra's __complete: it parses the flags of the
// command line it completes twice (once with "--" after them, to count
// the arguments), and would otherwise refuse the second parse and offer
// nothing after such a flag. A completion runs no command, so a flag
// that the line does give twice is then the user's to see when it runs.
func parsedTwice(cmd *cobra.Command) {
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if v, ok := f.Value.(*singleValue); ok {
			v.reparsed = true
		}
	})
	for _, sub := range cmd.Commands() {
		parsedTwice(sub)
	}
}

// nonEmptyValue is a repeatable string flag whose values are not empty.
type nonEmptyValue struct {
	pflag.Value
	empty error
}

func (v *nonEmptyValue) Set(s string) error {
	if s == "" {
		return v.empty
	}
	return v.Value.Set(s)
}
