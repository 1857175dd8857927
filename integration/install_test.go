package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// cloneLine is the first line of each install block: the test runs the
// rest in this repository, which is such a clone.
const cloneLine = "git clone https://github.com/hcp-rego/hcp-rego && cd hcp-rego"

// TestDocsInstallFromClone runs the install blocks of the README and
// docs/install.md as written, in this repository for the clone, with
// GOBIN a temporary folder on PATH: go install of hcp-rego and of the
// pinned OPA, and each version they print.
func TestDocsInstallFromClone(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{"../README.md", "../docs/install.md"} {
		blocks := docBlocks(t, page, "<!-- install-commands:")
		if len(blocks) != 1 {
			t.Fatalf("%s holds %d install-commands blocks, want 1", page, len(blocks))
		}
		cmds := docCommands(blocks[0])
		if len(cmds) == 0 || cmds[0].line != cloneLine {
			t.Fatalf("%s: the install block does not start %q", page, cloneLine)
		}
		bin := t.TempDir()
		env := append(os.Environ(), "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		for _, c := range cmds[1:] {
			runShown(t, page, root, env, c)
		}
	}
}

// TestDocsLibraryFromClone makes a module beside a clone of this
// repository (a link to it, named as the page names the clone) whose
// program decides a call with packages compile and rego, runs the page's
// commands in it, and then the program.
func TestDocsLibraryFromClone(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	blocks := docBlocks(t, "../docs/install.md", "<!-- replace-commands:")
	if len(blocks) != 1 {
		t.Fatalf("docs/install.md holds %d replace-commands blocks, want 1", len(blocks))
	}
	dir := t.TempDir()
	if err := os.Symlink(root, filepath.Join(dir, "hcp-rego")); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "my-service")
	treetest.Write(t, mine, map[string]string{
		"go.mod":  "module example.com/my-service\n\ngo 1.26\n",
		"main.go": libraryProgram,
	})
	for _, c := range docCommands(blocks[0]) {
		runShown(t, "docs/install.md", mine, os.Environ(), c)
	}
	run := exec.Command("go", "run", ".")
	run.Dir = mine
	out, err := run.CombinedOutput()
	if err != nil || string(out) != "allowed\n" {
		t.Errorf("go run . in the module: %v\n%s\nwant \"allowed\"", err, out)
	}
}

// libraryProgram is a program of a module that depends on the library.
const libraryProgram = `package main

import (
	"context"
	"fmt"
	"log"

	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

func main() {
	m, err := compile.Checked([]string{"../hcp-rego/testdata/packs"}, []string{"../hcp-rego/testdata/grants/acme.json"})
	if err != nil {
		log.Fatal(err)
	}
	b, err := compile.Compile(m, "")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ev, err := hcprego.New(ctx, b)
	if err != nil {
		log.Fatal(err)
	}
	res, err := ev.Decide(ctx, map[string]any{"principal": map[string]any{"id": "bob", "roles": []any{"member"}},
		"pack_id": "mail", "verb_key": "mail.list", "owner": "bob"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Decision.Code)
}
`

// runShown runs one command of a page in dir and holds its stdout to the
// lines shown under it, where "..." stands for any lines.
func runShown(t *testing.T, page, dir string, env []string, c docCommand) {
	t.Helper()
	sh := exec.Command("bash", "-c", c.line)
	sh.Dir, sh.Env = dir, env
	var stdout, stderr bytes.Buffer
	sh.Stdout, sh.Stderr = &stdout, &stderr
	if err := sh.Run(); err != nil {
		t.Fatalf("%s: $ %s: %v\n%s%s", page, c.line, err, stdout.String(), stderr.String())
	}
	got := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
	if len(c.output) > 0 && !matchShown(c.output, got) {
		t.Errorf("%s: $ %s\nprinted\n%s\nthe page shows\n%s", page, c.line, stdout.String(), strings.Join(c.output, "\n"))
	}
}

// matchShown says whether got matches want line by line, where a wanted
// line "..." stands for any number of lines.
func matchShown(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchShown(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == want[0] && matchShown(want[1:], got[1:])
}
