package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/internal/schema"
)

func newSchemaCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:       "schema NAME",
		Short:     "Print the JSON Schema of an input: " + strings.Join(schema.Names(), ", "),
		Example:   "  hcp-rego schema policy > policy.schema.json",
		Args:      cobra.ExactArgs(1),
		ValidArgs: schema.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := schema.Text(args[0])
			if err != nil {
				return badInput(err)
			}
			_, err = s.out.Write(text)
			return err
		},
	}
}
