package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/scaffold"
)

type initPackOptions struct {
	name string
	dir  string
}

func newInitCommand(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write the starting files of something new: a pack",
		Example: `  hcp-rego init pack billing -o policy
  hcp-rego test --coverage policy`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newInitPackCommand(s))
	return cmd
}

func newInitPackCommand(s streams) *cobra.Command {
	var o initPackOptions
	cmd := &cobra.Command{
		Use:   "pack NAME [-o DIR]",
		Short: "Write a new pack, a grant file and a case file that lint, build and test green",
		Long: `Init pack writes, under DIR (default "."), the files of a new pack NAME
as a repository of packs keeps them:

  packs/NAME/manifest.json   a read command, a confirm-gated write whose cli
                             takes --confirm, a connect command, a trigger
  packs/NAME/policy.json     a row for each
  grants/NAME.json           a role's read and write, a trigger and a connect
                             grant, a default grant
  cases/NAME.cases.yaml      allowed, confirm_required (with preview.cli),
                             land_denied and capability_required cases

NAME must be a pack id: lowercase letters, digits, "_" and "-", starting
with a letter or digit. Nothing is written if any of the files is there
already (exit 2). Edit the files, then run hcp-rego test DIR.`,
		Example: `  hcp-rego init pack billing -o policy
  hcp-rego lint policy/packs --grants policy/grants/billing.json
  hcp-rego test --coverage --threshold 100 policy`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.name = args[0]
			return runInitPack(s, o)
		},
	}
	cmd.Flags().StringVarP(&o.dir, "output", "o", ".", "the folder to write under")
	return cmd
}

func runInitPack(s streams, o initPackOptions) error {
	files, err := scaffold.Pack(o.name)
	if err != nil {
		return badInput(err)
	}
	written, err := scaffold.Write(o.dir, files)
	if err != nil {
		return badInput(err)
	}
	for _, p := range written {
		fmt.Fprintf(s.out, "wrote %s\n", printable.Quote(p))
	}
	fmt.Fprintf(s.out, "next: hcp-rego test --coverage %s\n", shellWord(o.dir))
	return nil
}

// shellSafe are the words a shell takes as written.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9._/:@%+=,-]+$`)

// shellWord is path as one shell word: as written when that is safe,
// else single-quoted, and Printable either way.
func shellWord(path string) string {
	if shellSafe.MatchString(path) {
		return path
	}
	return printable.Quote("'" + strings.ReplaceAll(path, "'", `'\''`) + "'")
}
