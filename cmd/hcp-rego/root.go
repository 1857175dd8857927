package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/spf13/cobra"
)

// streams are the standard files a command reads and writes; tests pass
// buffers.
type streams struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// run executes the command line args and returns the exit code. A result
// that could not be written to standard output (a full disk, a closed
// pipe) ends the run with exit 2, whichever command wrote it.
func run(args []string, s streams) int {
	out := &outputWriter{w: s.out}
	s.out = out
	root := newRootCommand(s)
	root.SetArgs(args)
	code, msg := exitCode(root.Execute())
	if out.err != nil && code != exitBadInput {
		code, msg = exitBadInput, fmt.Sprintf("write standard output: %v", pathless(out.err))
	}
	if msg != "" {
		fmt.Fprintln(s.err, msg)
	}
	return code
}

// outputWriter passes writes on to w until one fails, and keeps that
// error.
type outputWriter struct {
	w   io.Writer
	err error
}

func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.err = err
	}
	return n, err
}

// pathless drops the file name from a file error: the name of standard
// output is whatever the shell opened.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
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
	strictFlags(root)
	return root
}
