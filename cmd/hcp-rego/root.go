package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// streams are the standard files a command reads and writes; tests pass
// buffers.
type streams struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// run executes the command line args and returns the exit code.
func run(args []string, s streams) int {
	root := newRootCommand(s)
	root.SetArgs(args)
	code, msg := exitCode(root.Execute())
	if msg != "" {
		fmt.Fprintln(s.err, msg)
	}
	return code
}

func newRootCommand(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "hcp-rego",
		Short: "Compile HCP pack policy and capability grants into Rego and OPA bundles",
		Long: `hcp-rego compiles HCP pack policy.json rows, checked against each pack's
manifest, together with capability grant sets, into Rego modules and OPA
bundles; evaluates decisions locally with an embedded OPA; runs policy tests;
and shows who gets what.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		newLintCommand(s),
		newCompileCommand(s),
		newBuildCommand(s),
		newEvalCommand(s),
		newTestCommand(s),
		newMatrixCommand(s),
		newExportCommand(s),
		newSchemaCommand(s),
		newVersionCommand(s),
	)
	return root
}
