package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// requiredFlags matches cobra's error for required flags not given.
var requiredFlags = regexp.MustCompile(`^required flag\(s\) (.+) not set$`)

// usageHelp makes cobra's usage errors say what to do: a required flag not
// given is named as a user types it (-o, --output), and the message points
// at the command's --help. Other errors pass as they are.
func usageHelp(cmd *cobra.Command, err error) error {
	if err == nil || cmd == nil {
		return err
	}
	m := requiredFlags.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	var names []string
	for _, quoted := range strings.Split(m[1], ", ") {
		name, qerr := strconv.Unquote(quoted)
		if qerr != nil {
			return err
		}
		names = append(names, name)
	}
	return missingFlags(cmd, names...)
}

// missingFlags is the error for required flags of cmd not given.
func missingFlags(cmd *cobra.Command, names ...string) error {
	labels := make([]string, len(names))
	for i, name := range names {
		labels[i] = "--" + name
		if f := cmd.Flags().Lookup(name); f != nil && f.Shorthand != "" {
			labels[i] = fmt.Sprintf("-%s (--%s)", f.Shorthand, name)
		}
	}
	words := "flag " + labels[0]
	if len(labels) > 1 {
		words = "flags " + strings.Join(labels[:len(labels)-1], ", ") + " and " + labels[len(labels)-1]
	}
	return fmt.Errorf("required %s not set: %s --help shows an example", words, cmd.CommandPath())
}

// flagError is every command's error for a flag it cannot read: for a
// flag it does not know, cobra's words and where the flags are listed;
// any other (an empty value says itself what to do) as it is.
func flagError(cmd *cobra.Command, err error) error {
	if !strings.HasPrefix(err.Error(), "unknown flag") && !strings.HasPrefix(err.Error(), "unknown shorthand flag") {
		return err
	}
	return fmt.Errorf("%w: %s --help lists the flags", err, cmd.CommandPath())
}
