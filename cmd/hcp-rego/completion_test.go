package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestCompletionScripts: hcp-rego completion SHELL prints that shell's
// script, for the four shells cobra writes.
func TestCompletionScripts(t *testing.T) {
	for shell, marker := range map[string]string{
		"bash":       "# bash completion V2 for hcp-rego",
		"zsh":        "#compdef hcp-rego",
		"fish":       "complete -c hcp-rego ",
		"powershell": "Register-ArgumentCompleter -CommandName 'hcp-rego'",
	} {
		t.Run(shell, func(t *testing.T) {
			var out, errs bytes.Buffer
			if code := run([]string{"completion", shell}, streams{out: &out, err: &errs}); code != 0 || errs.Len() != 0 {
				t.Fatalf("exit %d: %s", code, errs.String())
			}
			if !strings.Contains(out.String(), marker) {
				t.Errorf("no %q in the script:\n%.400s", marker, out.String())
			}
		})
	}
	var out, errs bytes.Buffer
	if code := run([]string{"completion", "tcsh"}, streams{out: &out, err: &errs}); code != exitBadInput || out.Len() != 0 ||
		errs.String() != "unknown command \"tcsh\" for \"hcp-rego completion\"\n" {
		t.Errorf("completion tcsh: exit %d, stdout %q, stderr %q; want exit 2 and unknown command", code, out.String(), errs.String())
	}
}

// TestCompletionCompletes asks what each shell's script asks (hcp-rego
// __complete ARGS): commands, subcommands and schema names.
func TestCompletionCompletes(t *testing.T) {
	tests := []struct {
		args []string
		want []string // lines that must be offered
	}{
		{[]string{"in"}, []string{"init\tWrite the starting files of something new: a pack"}},
		{[]string{"init", ""}, []string{"pack\tWrite a new pack, a grant file and a case file that lint, build and test green"}},
		{[]string{"schema", ""}, []string{"cases", "grants", "input", "manifest", "policy"}},
		{[]string{"completion", ""}, []string{"bash\tGenerate the autocompletion script for bash", "zsh\tGenerate the autocompletion script for zsh"}},
	}
	for _, tt := range tests {
		var out, errs bytes.Buffer
		if code := run(append([]string{"__complete"}, tt.args...), streams{out: &out, err: &errs}); code != 0 {
			t.Fatalf("__complete %q: exit %d: %s", tt.args, code, errs.String())
		}
		lines := strings.Split(out.String(), "\n")
		for _, w := range tt.want {
			if !contains(lines, w) {
				t.Errorf("__complete %q offers:\n%s\nnot %q", tt.args, out.String(), w)
			}
		}
	}
}

func contains(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

// bashCompletionLib is the bash-completion package's library, which
// cobra's bash script needs (_get_comp_words_by_ref); .ci/run installs it.
const bashCompletionLib = "/usr/share/bash-completion/bash_completion"

// TestCompletionBash loads the bash script into bash, as a user's shell
// does, and completes three command lines with it: the script, the binary
// and the command tree agree.
func TestCompletionBash(t *testing.T) {
	_, bashErr := exec.LookPath("bash")
	_, libErr := os.Stat(bashCompletionLib)
	if bashErr != nil || libErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bash or bash-completion is missing (.ci/run installs them): %v %v", bashErr, libErr)
		}
		t.Skipf("no bash or bash-completion here: %v %v", bashErr, libErr)
	}
	script := `source ` + bashCompletionLib + `
source <(hcp-rego completion bash)
complete_line() {
  COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
  read -ra COMP_WORDS <<< "$1"
  if [[ "$1" == *" " ]]; then COMP_WORDS+=(""); fi
  COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
  __start_hcp-rego 2>/dev/null
  printf '%s\n' "${COMPREPLY[@]}" --
}
complete_line "hcp-rego in"
complete_line "hcp-rego init "
complete_line "hcp-rego schema "
`
	out, err := exec.Command("bash", "-c", script).CombinedOutput()
	want := "init\n--\npack\n--\ncases\ngrants\ninput\nmanifest\npolicy\n--\n"
	if err != nil || string(out) != want {
		t.Errorf("bash completion: %v\n%s\nwant:\n%s", err, out, want)
	}
}
