package main

import "github.com/spf13/cobra"

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
// know is a usage error.
func addCompletionCommand(root *cobra.Command) {
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
