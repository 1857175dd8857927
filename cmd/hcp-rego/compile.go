package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/printable"
)

type compileOptions struct {
	packFlags
	output   string
	revision string
}

func newCompileCommand(s streams) *cobra.Command {
	var o compileOptions
	cmd := &cobra.Command{
		Use:   "compile [PACK_DIR...] [--grants FILE]... -o DIR [--revision R]",
		Short: "Write the bundle's library, rows, grant tables and .manifest as a folder",
		Long: `Compile lints and compiles the packs and grant files and writes the files
of the bundle that build would write, as a bundle directory: the library's
modules at hcp/authz/*.rego, the packs' rows as hcp_packs/data.json, the
grant tables as hcp_grants/data.json (hcp/authz holds an empty data.json;
see docs/bundles.md), and .manifest. OPA reads the folder as the
same bundle: opa run --bundle DIR, opa build --bundle DIR, opa check
--strict --bundle DIR.

The folder is written beside DIR and renamed into place: on any error
nothing is written and an existing DIR is untouched. An existing DIR is
replaced only when it is empty or an earlier output of compile. DIR must
not be an input, lie inside a pack folder read, nor hold an input.`,
		Example: `  hcp-rego compile testdata/packs --grants testdata/grants/acme.json -o hcp-modules
  opa check --strict --bundle hcp-modules && opa fmt --list --fail hcp-modules`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.packs = args
			return runCompile(s, o)
		},
	}
	addPackFlags(cmd.Flags(), &o.packFlags)
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "the folder to write (required)")
	cmd.Flags().StringVar(&o.revision, "revision", "", "the bundle's revision (default: a digest of its content)")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

func runCompile(s streams, o compileOptions) error {
	m, err := o.checked()
	if err != nil {
		return badInput(err)
	}
	if err := bundles.CheckOutput(o.output, m.Inputs()); err != nil {
		return badInput(err)
	}
	b, err := compile.Compile(m, o.revision)
	if err != nil {
		return badInput(err)
	}
	if err := bundles.WriteDir(o.output, b); err != nil {
		return badInput(err)
	}
	fmt.Fprintf(s.out, "wrote %s: revision %s, %d modules, %d packs, %d grants\n", printable.Quote(o.output), printable.Quote(b.Manifest.Revision), len(b.Modules), len(m.Packs()), len(m.Grants()))
	return nil
}
