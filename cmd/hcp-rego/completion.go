package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// completionExamples are the examples of cobra's completion command and
// its subcommands, one a shell: how to load the script now, or for every
// new shell.
var completionExamples = map[string]string{
	"completion": `  source <(hcp-rego completion bash)
  hcp-rego completion zsh --help`,
	"bash":       `  source <(hcp-rego completion bash)`,
	"zsh":        `  hcp-rego completion zsh > "${fpath[1]}/_hcp-rego"`,
	"fish":       `  hcp-rego completion fish > ~/.config/fish/completions/hcp-rego.fish`,
	"powershell": `  hcp-rego completion powershell | Out-String | Invoke-Expression`,
}

// addCompletionCommand adds cobra's completion command (bash, zsh, fish,
// powershell) now rather than when the root runs, as cobra would, so that
// it is in the tree that strictFlags and the tests walk, and gives it and
// its subcommands an example, as every command has. A shell it does not
// know is a usage error. What cobra's hidden __complete prints goes
// through guardCompletion.
func addCompletionCommand(root *cobra.Command) {
	root.PersistentPreRunE = guardCompletion
	root.InitDefaultCompletionCmd()
	for _, cmd := range root.Commands() {
		if cmd.Name() != "completion" {
			continue
		}
		cmd.Example = completionExamples["completion"]
		// Runnable, so that cobra checks its arguments: a shell it does
		// not know is a usage error (exit 2), not the help and exit 0.
		cmd.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
		for _, sub := range cmd.Commands() {
			sub.Example = completionExamples[sub.Name()]
		}
	}
}

// guardCompletion is the root's PersistentPreRunE: it runs before every
// command, and acts only before cobra's hidden __complete, which the
// completion scripts call with the words of the command line. Cobra
// writes its completion errors, which quote those words, raw to the
// process's stderr: a word that is not printable (a line break, an
// escape, another control character, a byte that is not UTF-8) is
// completed with nothing, ShellCompDirectiveError, and named escaped, so
// that no word from a command line or a file name starts a line or
// reaches a terminal (docs/install.md). Otherwise what __complete prints
// goes through candidateWriter, and the single-valued flags take the
// second parse of the line that __complete makes (parsedTwice).
func guardCompletion(cmd *cobra.Command, args []string) error {
	if cmd.Name() != cobra.ShellCompRequestCmd {
		return nil
	}
	for i, word := range args {
		if printable.Escape(word) != word {
			fmt.Fprintf(cmd.ErrOrStderr(), "[Error] word %d of the command line, %s, is not printable: nothing to complete\n", i+1, printable.Quote(word))
			fmt.Fprintf(cmd.OutOrStdout(), ":%d\n", cobra.ShellCompDirectiveError)
			return &exitError{code: exitOK}
		}
	}
	// __complete writes to the command it completes, whose output is the
	// root's.
	root := cmd.Root()
	root.SetOut(&candidateWriter{w: root.OutOrStdout()})
	parsedTwice(root)
	return nil
}

// candidateWriter passes on the lines that __complete writes, a
// completion candidate each ("name", or "name<tab>description") and the
// directive (":4") last, but leaves out a candidate that holds a control
// character or is not UTF-8, or that starts with "::", rather than write it
// mangled: the shell needs a candidate's bytes as they are, and no
// candidate may start a workflow command. The ones written are byte for
// byte what cobra made. A last line with no line break is not written
// (cobra ends each line with one).
type candidateWriter struct {
	w       io.Writer
	partial []byte
}

func (c *candidateWriter) Write(p []byte) (int, error) {
	c.partial = append(c.partial, p...)
	for {
		end := bytes.IndexByte(c.partial, '\n')
		if end < 0 {
			return len(p), nil
		}
		line := string(c.partial[:end])
		c.partial = c.partial[end+1:]
		if !printableCandidate(line) {
			continue
		}
		if _, err := io.WriteString(c.w, line+"\n"); err != nil {
			return 0, err
		}
	}
}

// printableCandidate reports whether a line of __complete can be written
// as it is: every field between its tabs printable, and no "::" first.
func printableCandidate(line string) bool {
	if strings.HasPrefix(line, "::") {
		return false
	}
	for _, field := range strings.Split(line, "\t") {
		if printable.Escape(field) != field {
			return false
		}
	}
	return true
}
