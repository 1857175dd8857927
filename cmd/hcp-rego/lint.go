package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

type lintOptions struct {
	packFlags
}

func newLintCommand(s streams) *cobra.Command {
	var o lintOptions
	cmd := &cobra.Command{
		Use:   "lint [PACK_DIR...] [--grants FILE]...",
		Short: "Check packs and grants for coverage and consistency",
		Long: `Lint checks each pack's policy.json against its manifest.json and each
grant against the packs (docs/files.md), and prints every finding as
file:line:col: message. A PACK_DIR is a pack folder or a folder of packs
(default "."). Exit 1 on findings, 2 on unreadable or invalid files.`,
		Example: `  hcp-rego lint testdata/packs --grants testdata/grants/acme.json
  hcp-rego lint testdata/packs/ledger`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.packs = args
			return runLint(s, o)
		},
	}
	addPackFlags(cmd.Flags(), &o.packFlags)
	return cmd
}

func runLint(s streams, o lintOptions) error {
	sources := o.sources.limits().Open(o.packs, o.grants)
	if sources.Err() != nil {
		return badInput(sources.Problems())
	}
	if err := sources.Lint(); err != nil {
		fmt.Fprintln(s.out, err)
		return findings()
	}
	rows := 0
	for _, p := range sources.Packs() {
		rows += len(p.Verbs) + len(p.Stimuli)
	}
	fmt.Fprintf(s.out, "ok: %d packs (%d rows), %d grant files (%d grants)\n", len(sources.Packs()), rows, len(sources.GrantFiles()), len(sources.Grants()))
	return nil
}
