package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/explain"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// fullWriter fails every write, as standard output on a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// A result that cannot be written ends the run with exit 2 and says so,
// also for the commands that print with fmt and for a findings exit.
func TestLostOutputIsBadInput(t *testing.T) {
	packs := []string{"../../testdata/packs", "--grants", "../../testdata/grants/acme.json", "--grants", "../../testdata/grants/defaults.json"}
	tests := []struct {
		name string
		args []string
	}{
		{"version", []string{"version"}},
		{"help", []string{"--help"}},
		{"lint", append([]string{"lint"}, packs...)},
		{"lint findings", []string{"lint", "PACK"}},
		{"eval pretty", append([]string{"eval", "--input", "../../testdata/inputs/confirm.json", "--format", "pretty"}, packs...)},
		// These return the write's error themselves: one message still.
		{"eval json", append([]string{"eval", "--input", "../../testdata/inputs/confirm.json"}, packs...)},
		{"schema", []string{"schema", "input"}},
		{"matrix", append([]string{"matrix", "--tenant", "acme"}, packs...)},
		{"replay", append([]string{"replay", "../../testdata/logs/decisions.log"}, packs...)},
		{"replay findings", append([]string{"replay", "../../testdata/logs/decisions.log", "--fail-on", "change", "--format", "json"}, packs...)},
		{"compare", []string{"compare", "../../testdata/packs", "../../testdata/seed004"}},
		{"compare findings", []string{"compare", "../../testdata/packs", "../../testdata/seed004", "--fail-on", "change", "--format", "markdown"}},
	}
	// A pack whose manifest has a command without a policy row: a finding.
	pack := t.TempDir()
	os.WriteFile(filepath.Join(pack, "manifest.json"), []byte(`{"id": "shop", "commands": {"browse": {}, "buy": {}}}`), 0o644)
	os.WriteFile(filepath.Join(pack, "policy.json"), []byte(`{"surface_id": "shop", "verbs": {"browse": {"operation": "read", "privacy": {"land": "personal"}}}}`), 0o644)
	if code, _, _ := runTestCLI(t, "lint", pack); code != exitFindings {
		t.Fatalf("lint fixture: exit %d, want findings", code)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if i := slices.Index(tt.args, "PACK"); i >= 0 {
				tt.args[i] = pack
			}
			var errOut bytes.Buffer
			code := run(tt.args, streams{in: bytes.NewReader(nil), out: fullWriter{}, err: &errOut})
			if code != exitBadInput || errOut.String() != "write standard output: no space left on device\n" {
				t.Errorf("exit %d, stderr %q", code, errOut.String())
			}
		})
	}
}

// eval --format pretty quotes a value that holds a character that does not
// print: an input cannot forge a line or send escape sequences.
func TestPrettyQuotesControlCharacters(t *testing.T) {
	input := filepath.Join(t.TempDir(), "input.json")
	os.WriteFile(input, []byte(`{"principal":{"id":"a"},"pack_id":"ledger\u001b[31m","verb_key":"x\nFAKE LINE"}`), 0o644)
	code, out, _ := runTestCLI(t, "eval", "../../testdata/packs", "--input", input, "--format", "pretty")
	want := "unknown_command: unknown command\n  call       \"ledger\\x1b[31m verb_key x\\nFAKE LINE\"\n"
	if code != exitOK || out != want {
		t.Errorf("exit %d, stdout %q\nwant %q", code, out, want)
	}
}

// The matrix is coloured on a terminal also through the writer that
// watches standard output for errors (/dev/null is a character device,
// as a terminal is).
func TestColourThroughOutputWriter(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm")
	if !colourful(&outputWriter{w: f}) {
		t.Error("no colour through outputWriter")
	}
	if colourful(&outputWriter{w: &bytes.Buffer{}}) {
		t.Error("colour on a buffer")
	}
}

// --explain's steps quote a line that holds a character that does not
// print, such as a runtime reason built from the input.
func TestPrettyStepsQuoteControlCharacters(t *testing.T) {
	got := explain.Pretty(hcprego.DecisionOf(map[string]any{"code": "runtime_denied"}), []explain.Step{{Status: "STOP", Name: "runtime", Detail: []string{"blocked x\x1b[2J"}}})
	if want := "runtime_denied\n\nSTOP  runtime     \"blocked x\\x1b[2J\"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A bundle given with --bundle is an input, and its library may return
// any code and error: eval's pretty first line quotes a code that would
// start a workflow command or a result line of ours, and an error that
// does not print; our own codes are written as they are.
func TestPrettyCodeStartsNoCommand(t *testing.T) {
	for _, tc := range []struct{ code, err, want string }{
		{"land_denied", "land denied", "land_denied: land denied\n"},
		{"allowed", "", "allowed\n"},
		{"::error::x", "", "\"::error::x\"\n"},
		{"PASS forged", "a\n::warning::b", "\"PASS forged\": \"a\\n::warning::b\"\n"},
	} {
		if got := explain.Pretty(hcprego.DecisionOf(map[string]any{"code": tc.code, "error": tc.err}), nil); got != tc.want {
			t.Errorf("code %q, error %q: got %q, want %q", tc.code, tc.err, got, tc.want)
		}
	}
}

// Help shows no "(default [])" for repeatable flags, and "-o=" (an empty
// variable after the shorthand) is refused as an empty value.
func TestStrictFlagsHelpAndShorthand(t *testing.T) {
	_, out, _ := runTestCLI(t, "lint", "--help")
	if strings.Contains(out, "(default [])") {
		t.Errorf("help shows an empty default:\n%s", out)
	}
	packs, err := filepath.Abs("../../testdata/packs")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // a regression writes "=" there, not in the source tree
	code, _, errOut := runTestCLI(t, "build", packs, "-o=")
	if code != exitBadInput || errOut != "invalid argument \"=\" for \"-o, --output\" flag: empty value\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
