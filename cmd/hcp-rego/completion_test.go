package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
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

// TestCompletionAfterFlags: cobra's __complete parses the flags of the
// line it completes twice, and a single-valued flag before the word to
// complete (-o x, --format pretty) used to refuse the second parse as
// given twice, so that nothing was offered. A run still refuses a flag
// given twice.
func TestCompletionAfterFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string // a line that must be offered
	}{
		{[]string{"build", "-o", "x", "--"}, "--grants\ta grant file (repeatable; grants add up)"},
		{[]string{"build", "--output=x", "--revision", "r1", "--sig"}, "--signing-key\tsign with this PEM private key (or HS256 secret file)"},
		{[]string{"eval", "--format", "pretty", "--gr"}, "--grants\ta grant file (repeatable; grants add up)"},
		{[]string{"status", "--bundle", "hcp", "--wa"}, "--wait\task again until every sidecar is done or this long has passed, such as 40s"},
		{[]string{"export", "--harness", "codex", "--sub"}, "--subject\tthe subject: principal:ID, role:NAME or default (required)"},
	}
	for _, tt := range tests {
		var out, errs bytes.Buffer
		var code int
		processErr := captureStderr(t, func() {
			code = run(append([]string{"__complete"}, tt.args...), streams{out: &out, err: &errs})
		})
		if code != 0 || strings.Contains(processErr, "given twice") || !contains(strings.Split(out.String(), "\n"), tt.want) {
			t.Errorf("__complete %q: exit %d, offers:\n%s\nnot %q; stderr %s%s", tt.args, code, out.String(), tt.want, errs.String(), processErr)
		}
	}
	packs, err := filepath.Abs("../../testdata/packs")
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	code := run([]string{"build", packs, "--grants", "../../testdata/grants/acme.json", "-o", filepath.Join(t.TempDir(), "x.tar.gz"), "-o", "y"}, streams{out: &out, err: &errs})
	if want := "invalid argument \"y\" for \"-o, --output\" flag: given twice; it takes one value\n"; code != exitBadInput || out.Len() != 0 || errs.String() != want {
		t.Errorf("build -o x -o y: exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out.String(), errs.String(), want)
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

// hostileNames are file and folder names, and arguments, that would start
// a line of their own or drive a terminal if printed raw.
var hostileNames = []string{"\n::error::x", "a\x1b[31mb", "c\rd", "\x1b]0;title\x07", "e\u2028::warning::f"}

// TestCompletionPrintsNoArgumentRaw runs __complete, as a shell's script
// does, on hostile arguments, in a folder of hostile file names: nothing
// it prints, on stdout, on stderr, or on the process's own stderr (where
// cobra writes its completion errors), holds a control character but a
// line break or a tab, or has a line that starts with "::"
// (docs/reliability.md, "Names cannot write output of their own").
func TestCompletionPrintsNoArgumentRaw(t *testing.T) {
	dir := t.TempDir()
	for _, name := range hostileNames {
		if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(dir, "pack"+name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var lines [][]string
	for _, h := range hostileNames {
		lines = append(lines,
			[]string{h, ""},
			[]string{"nosuch" + h, ""},
			[]string{"schema", h},
			[]string{"lint", "--x" + h + "="},
			[]string{"lint", "--nosuch" + h, ""},
			[]string{"lint", "--grants", h},
			[]string{"lint", "pack" + h, ""},
			[]string{"eval", "--input", "a", "--input", h, ""},
			[]string{"build", "-o", h, "--grants", ""},
		)
	}
	lines = append(lines, []string{"lint", ""}, []string{"lint", "--grants", ""}, []string{"test", ""}, []string{"build", "-o", ""})
	for _, args := range lines {
		for _, request := range []string{"__complete", "__completeNoDesc"} {
			var out, errs bytes.Buffer
			var code int
			processErr := captureStderr(t, func() {
				code = run(append([]string{request}, args...), streams{out: &out, err: &errs})
			})
			if code != 0 {
				t.Errorf("%s %q: exit %d", request, args, code)
			}
			for stream, text := range map[string]string{"stdout": out.String(), "stderr": errs.String(), "the process's stderr": processErr} {
				if bad := unsafeLine(text); bad != "" {
					t.Errorf("%s %q: %s has the line %q", request, args, stream, bad)
				}
			}
		}
	}
}

// unsafeLine returns the first line of text that starts with "::" or holds
// a byte below 0x20 other than a tab, or a line or paragraph separator;
// "" when there is none.
func unsafeLine(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "::") || strings.ContainsAny(line, "\u2028\u2029") {
			return line
		}
		for _, b := range []byte(line) {
			if b < 0x20 && b != '\t' {
				return line
			}
		}
	}
	return ""
}

// captureStderr returns what f writes to the process's standard error,
// where cobra's completion writes its errors (cobra.CompErrorln) rather
// than to the command's error stream. Tests that call it are not
// parallel: os.Stderr is the process's.
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	file, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = file
	defer func() { os.Stderr = saved }()
	f()
	data, err := os.ReadFile(file.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestCandidateWriter: a completion candidate that holds a control
// character, or starts with "::", is left out, not written mangled; the
// others, and the directive, are written byte for byte, however cobra's
// writes fall.
func TestCandidateWriter(t *testing.T) {
	var out bytes.Buffer
	w := &candidateWriter{w: &out}
	for _, chunk := range []string{"pack\tWrite a new pack\n", "a\x1b[31mb\n", "::error::x\n", "c\rd\tdesc\n", "ok\tbut a\nd", "esc\x1b\n", "plain", "\n:4\n"} {
		if n, err := w.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	if want := "pack\tWrite a new pack\nok\tbut a\nplain\n:4\n"; out.String() != want {
		t.Errorf("written %q, want %q", out.String(), want)
	}
}
