package main

import (
	"fmt"
	"runtime/debug"

	"github.com/open-policy-agent/opa/v1/version"
	"github.com/spf13/cobra"
)

func newVersionCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the hcp-rego version and the OPA it embeds",
		Example: "  hcp-rego version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := "(devel)"
			if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
				v = info.Main.Version
			}
			fmt.Fprintf(s.out, "hcp-rego %s\nopa %s\n", v, version.Version)
			return nil
		},
	}
}
