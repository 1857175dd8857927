package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// streams are the standard files a command reads and writes; tests pass
// buffers.
type streams struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// run executes the command line args and returns the exit code. A result
// that could not be written to standard output (a full disk, say) ends
// the run with exit 2 and one message, whichever command wrote it and
// whether or not the command saw the error.
func run(args []string, s streams) int {
	out := &outputWriter{w: s.out}
	s.out = out
	root := newRootCommand(s)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	err = usageHelp(cmd, err)
	code, msg := exitCode(err)
	if out.err != nil && (code != exitBadInput || errors.Is(err, out.err)) {
		code, msg = exitBadInput, fmt.Sprintf("write standard output: %v", problem.Pathless(out.err))
	}
	if msg != "" {
		fmt.Fprintln(s.err, errorText(err, msg))
	}
	return code
}

// errorText is what stderr shows of err, printable and with no line an
// input can start (docs/reliability.md, "Names cannot write output of
// their own"): the problems of a problem.Errors each on its
// line (each is made printable where it is made), and everything else,
// a message that names a file as the system or OPA does, escaped whole,
// its line breaks written \n.
func errorText(err error, msg string) string {
	var errs problem.Errors
	var one *problem.Error
	inner := ""
	switch {
	case errors.As(err, &errs):
		inner = errs.Error()
	case errors.As(err, &one):
		inner = one.Error()
	}
	if inner != "" && strings.HasSuffix(msg, inner) {
		return printable.Escape(strings.TrimSuffix(msg, inner)) + inner
	}
	return printable.Escape(msg)
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

func newRootCommand(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "hcp-rego",
		Short: "Compile HCP pack policy and capability grants into Rego and OPA bundles",
		Long: `hcp-rego compiles HCP pack policy.json rows, checked against each pack's
manifest, together with capability grant sets, into Rego modules and OPA
bundles; evaluates decisions locally with an embedded OPA; runs policy tests;
and shows who gets what.`,
		Example: `  hcp-rego init pack billing -o policy
  hcp-rego test --coverage policy
  hcp-rego build policy/packs --grants policy/grants/billing.json -o hcp.tar.gz`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.AddCommand(
		newLintCommand(s),
		newCompileCommand(s),
		newBuildCommand(s),
		newPushCommand(s),
		newPullCommand(s),
		newStatusCommand(s),
		newEvalCommand(s),
		newPermissionsCommand(s),
		newTestCommand(s),
		newMatrixCommand(s),
		newCompareCommand(s),
		newShardCommand(s),
		newReplayCommand(s),
		newExportCommand(s),
		newSchemaCommand(s),
		newInitCommand(s),
		newVersionCommand(s),
	)
	addCompletionCommand(root)
	strictFlags(root)
	root.SetFlagErrorFunc(flagError)
	return root
}
