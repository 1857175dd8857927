package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docSkipMarker, on the line before a shell block, keeps the block out of
// TestDocExamplesRun: it needs what a test folder does not have (a
// registry, a running sidecar, the repository itself). The marker says
// why; the integration tests run those steps.
const docSkipMarker = "<!-- docs-test: skip"

// docExample is one runnable command of a document: a "$ " line (and the
// lines it continues onto with a trailing backslash), the exit status it
// must end with ("# exit N" at its end; 0 otherwise) and the output shown
// under it, if any.
type docExample struct {
	file    string
	line    int
	command string
	exit    int
	output  []string
}

// docBlock is one fenced shell block of a document.
type docBlock struct {
	file     string
	line     int
	skipped  bool
	examples []docExample
}

var docExitRE = regexp.MustCompile(`\s#\s*exit (\d+)\s*$`)

// docShellFences are the info strings of the blocks that hold shell.
var docShellFences = map[string]bool{"```sh": true, "```bash": true, "```shell": true, "```console": true}

// readDocBlocks returns the shell blocks of a Markdown file.
func readDocBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docBlock
	lines := strings.Split(string(data), "\n")
	prev := ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if !docShellFences[strings.TrimSpace(line)] {
			if strings.TrimSpace(line) != "" {
				prev = strings.TrimSpace(line)
			}
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				// Skip over a block of another language.
				for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
				}
			}
			continue
		}
		b := docBlock{file: path, line: i + 1, skipped: strings.HasPrefix(prev, docSkipMarker)}
		var body []string
		start := i + 2
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, lines[i])
		}
		b.examples = parseDocExamples(t, path, start, body)
		blocks = append(blocks, b)
		prev = ""
	}
	return blocks
}

// parseDocExamples splits a block's lines into commands and the output
// shown under each. A line before the first "$ " is an error: every
// shell block shows runnable commands.
func parseDocExamples(t *testing.T, path string, start int, body []string) []docExample {
	t.Helper()
	var out []docExample
	for j := 0; j < len(body); j++ {
		line := body[j]
		if !strings.HasPrefix(line, "$ ") {
			if len(out) == 0 {
				if strings.TrimSpace(line) != "" {
					out = append(out, docExample{file: path, line: start + j, exit: -1})
				}
				continue
			}
			last := &out[len(out)-1]
			last.output = append(last.output, line)
			continue
		}
		ex := docExample{file: path, line: start + j, command: strings.TrimPrefix(line, "$ ")}
		for strings.HasSuffix(ex.command, "\\") && j+1 < len(body) {
			j++
			ex.command += "\n" + body[j]
		}
		if m := docExitRE.FindStringSubmatch(ex.command); m != nil {
			ex.exit, _ = strconv.Atoi(m[1])
		}
		out = append(out, ex)
	}
	for k := range out {
		out[k].output = trimBlankTail(out[k].output)
	}
	return out
}

// trimBlankTail drops trailing blank lines and each line's trailing
// spaces.
func trimBlankTail(lines []string) []string {
	for k := range lines {
		lines[k] = strings.TrimRight(lines[k], " \t")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// matchDocOutput reports whether got matches want line by line, where a
// wanted line "..." stands for any number of lines.
func matchDocOutput(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchDocOutput(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == want[0] && matchDocOutput(want[1:], got[1:])
}

// docFiles are the documents whose examples must run: the README and
// every page under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no docs/*.md")
	}
	return append([]string{"../../README.md"}, pages...)
}

// TestDocExamplesRun runs every shell example of README.md and docs/*.md,
// in order, a document at a time, in a folder that holds a copy of the
// repository's testdata: each command must end with the status the
// document gives it (0 unless "# exit N"), and print what the document
// shows under it (when it shows anything; "..." stands for any lines).
// A shell block that shows no "$ " command, and is not marked skipped, is
// an error: every example is either run or said not to be.
func TestDocExamplesRun(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here")
	}
	opa, err := exec.Command("go", "tool", "-n", "opa").Output()
	if err != nil {
		t.Fatalf("go tool -n opa: %v", err)
	}
	stubs := "set -e -o pipefail\n" +
		`opa() { if [ "$1" = run ]; then :; else "$OPA" "$@"; fi; }` + "\n"
	for _, file := range docFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "work")
			if err := os.CopyFS(filepath.Join(dir, "testdata"), os.DirFS("../../testdata")); err != nil {
				t.Fatal(err)
			}
			ran := 0
			for _, b := range readDocBlocks(t, file) {
				if b.skipped {
					continue
				}
				if len(b.examples) == 0 {
					t.Errorf("%s:%d: a shell block with no \"$ \" command (mark it %q if it cannot run)", b.file, b.line, docSkipMarker+" REASON -->")
				}
				for _, ex := range b.examples {
					if ex.exit < 0 {
						t.Errorf("%s:%d: a shell block line that is neither a \"$ \" command nor its output (mark the block %q if it cannot run)", ex.file, ex.line, docSkipMarker+" REASON -->")
						continue
					}
					runDocExample(t, dir, stubs, strings.TrimSpace(string(opa)), ex)
					ran++
				}
			}
			t.Logf("%s: %d commands run", file, ran)
		})
	}
}

// runDocExample runs one command in dir and checks its status and output.
func runDocExample(t *testing.T, dir, stubs, opa string, ex docExample) {
	t.Helper()
	sh := exec.Command("bash", "-c", stubs+ex.command)
	sh.Dir = dir
	sh.Env = append(os.Environ(), "OPA="+opa, "NO_COLOR=1")
	out, err := sh.CombinedOutput()
	code := 0
	if err != nil {
		exit, ok := err.(*exec.ExitError)
		if !ok {
			t.Errorf("%s:%d: %s: %v", ex.file, ex.line, ex.command, err)
			return
		}
		code = exit.ExitCode()
	}
	if code != ex.exit {
		t.Errorf("%s:%d: %s\nexit %d, want %d\n%s", ex.file, ex.line, ex.command, code, ex.exit, out)
		return
	}
	if len(ex.output) == 0 {
		return
	}
	got := trimBlankTail(strings.Split(string(out), "\n"))
	if !matchDocOutput(ex.output, got) {
		t.Errorf("%s:%d: %s\noutput:\n%s\nwant:\n%s", ex.file, ex.line, ex.command, strings.Join(got, "\n"), strings.Join(ex.output, "\n"))
	}
}

// TestDocExampleParsing holds the reader of examples to its rules, so that
// a block it misreads cannot pass TestDocExamplesRun by running nothing.
func TestDocExampleParsing(t *testing.T) {
	doc := "intro\n```sh\n$ echo a \\\n  b\na b\n$ false # exit 1\n```\n\n" + docSkipMarker + " needs a registry -->\n```sh\nhcp-rego push x y\n```\n```yaml\n$ not shell\n```\n```sh\nno dollar\n```\n"
	path := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	blocks := readDocBlocks(t, path)
	got := ""
	for _, b := range blocks {
		got += fmt.Sprintf("block %d skipped=%v\n", b.line, b.skipped)
		for _, ex := range b.examples {
			got += fmt.Sprintf("  %d %q exit %d out %q\n", ex.line, ex.command, ex.exit, ex.output)
		}
	}
	want := "block 2 skipped=false\n" +
		"  3 \"echo a \\\\\\n  b\" exit 0 out [\"a b\"]\n" +
		"  6 \"false # exit 1\" exit 1 out []\n" +
		"block 10 skipped=true\n" +
		"  11 \"\" exit -1 out []\n" +
		"block 16 skipped=false\n" +
		"  17 \"\" exit -1 out []\n"
	if got != want {
		t.Errorf("parsed:\n%s\nwant:\n%s", got, want)
	}
	if !matchDocOutput([]string{"a", "...", "d"}, []string{"a", "b", "c", "d"}) || matchDocOutput([]string{"a", "d"}, []string{"a", "b", "d"}) {
		t.Error("matchDocOutput: ... must stand for any lines, and only it")
	}
}

// docsWithoutRuns are the pages none of whose commands a test can run,
// and why.
var docsWithoutRuns = map[string]string{
	"performance.md": "make bench takes minutes, in a clone of the repository",
}

// docLinkRE finds a Markdown link to a local page: [text](path#anchor).
var docLinkRE = regexp.MustCompile(`\]\(([^)#:]+\.md)(#[^)]*)?\)`)

// TestDocPages holds docs/ to its shape: each page opens with a title and
// then the task it serves ("**Task: ...**"), runs at least one command
// (unless docsWithoutRuns says why not), points at no file outside the
// repository (a reader has no ../shared/), and every page the README and
// the pages link to exists.
func TestDocPages(t *testing.T) {
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		name := filepath.Base(file)
		if strings.Contains(text, "../shared") || strings.Contains(text, "SPEC.md") {
			t.Errorf("%s: points at ../shared, which a reader of the repository does not have", file)
		}
		for _, m := range docLinkRE.FindAllStringSubmatch(text, -1) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(file), m[1])); err != nil {
				t.Errorf("%s: link to %s: %v", file, m[1], err)
			}
		}
		if file == "../../README.md" {
			continue
		}
		title, rest, _ := strings.Cut(text, "\n\n")
		if !strings.HasPrefix(title, "# ") || !strings.HasPrefix(rest, "**Task: ") {
			t.Errorf("%s: does not open with a title and then \"**Task: ...**\"", file)
		}
		runs := 0
		for _, b := range readDocBlocks(t, file) {
			if !b.skipped {
				runs += len(b.examples)
			}
		}
		if _, ok := docsWithoutRuns[name]; ok != (runs == 0) {
			t.Errorf("%s: %d commands run; docsWithoutRuns lists it: %v", file, runs, ok)
		}
	}
}
