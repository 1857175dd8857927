package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// docBlocks are the blocks (shell or YAML) that follow each marker of a
// page, as written.
func docBlocks(t *testing.T, page, marker string) []string {
	t.Helper()
	var blocks []string
	rest := string(readFile(t, page))
	for {
		_, after, ok := strings.Cut(rest, marker)
		if !ok {
			return blocks
		}
		_, after, ok = strings.Cut(after, "```")
		_, body, ok2 := strings.Cut(after, "\n")
		block, tail, closed := strings.Cut(body, "```\n")
		if !ok || !ok2 || !closed {
			t.Fatalf("%s: no block after the marker %q", page, marker)
		}
		blocks = append(blocks, block)
		rest = tail
	}
}

// docCommand is one "$ " line of a block and the output shown under it.
type docCommand struct {
	line   string
	output []string
}

// docCommands splits a shell block into its commands.
func docCommands(block string) []docCommand {
	var cmds []docCommand
	for _, line := range strings.Split(strings.TrimRight(block, "\n"), "\n") {
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			cmds = append(cmds, docCommand{line: cmd})
		} else if len(cmds) > 0 {
			cmds[len(cmds)-1].output = append(cmds[len(cmds)-1].output, line)
		}
	}
	return cmds
}

// TestDocsSidecarCommands runs the sidecar commands of docs/bundles.md as
// they are written, in a copy of testdata/ after the page's own build of
// the signed hcp.tar.gz: `opa run` is the pinned OPA on a free port (for
// localhost:8181), hcp-rego the binary under test, and every output shown
// must be what the command prints.
func TestDocsSidecarCommands(t *testing.T) {
	t.Parallel()
	blocks := docBlocks(t, "../docs/bundles.md", "<!-- sidecar-commands:")
	if len(blocks) < 2 {
		t.Fatalf("docs/bundles.md holds %d sidecar-commands blocks, want 2", len(blocks))
	}
	bin := buildHCPRego(t)
	for i, block := range blocks {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			dir := t.TempDir()
			treetest.CopyTree(t, "../testdata", filepath.Join(dir, "testdata"))
			build := exec.Command(bin, "build", "testdata/packs", "--grants", "testdata/grants/acme.json", "--grants", "testdata/grants/defaults.json",
				"-o", "hcp.tar.gz", "--revision", "r1", "--signing-key", "testdata/keys/rsa.key", "--signing-key-id", "hcp")
			build.Dir = dir
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("the page's build: %v\n%s", err, out)
			}
			runDocCommands(t, dir, bin, docCommands(block))
		})
	}
}

// runDocCommands runs a block's commands in dir, each output held to the
// one shown.
func runDocCommands(t *testing.T, dir, bin string, cmds []docCommand) {
	t.Helper()
	addr := ""
	for _, c := range cmds {
		if args, ok := strings.CutPrefix(c.line, "opa run "); ok {
			fields := strings.Fields(strings.TrimSuffix(args, " &"))
			if len(fields) == 0 || fields[0] != "--server" {
				t.Fatalf("$ %s: the page's command must start a server", c.line)
			}
			s := startOPAIn(t, dir, fields[1:]...)
			s.waitHealthy(t)
			addr = strings.TrimPrefix(s.url, "http://")
			continue
		}
		line := strings.ReplaceAll(c.line, "localhost:8181", addr)
		sh := exec.Command("bash", "-c", line)
		sh.Dir = dir
		sh.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		var stdout, stderr bytes.Buffer
		sh.Stdout, sh.Stderr = &stdout, &stderr
		if err := sh.Run(); err != nil {
			t.Fatalf("$ %s: %v\n%s%s", c.line, err, stdout.String(), stderr.String())
		}
		if want := strings.Join(c.output, "\n"); len(c.output) > 0 && strings.TrimRight(stdout.String(), "\n") != want {
			t.Errorf("$ %s\nprinted\n%s\nthe page shows\n%s", c.line, stdout.String(), want)
		}
	}
}

// TestDocsKubernetesSidecar starts OPA as the Kubernetes example of
// docs/bundles.md runs it: the ConfigMap's opa.yaml as it is, the
// Secret's keys as files (their contents the test keys), and the opa
// container's arguments and environment, with its volumes' paths and the
// address made local. Our bundle, signed with the key "hcp", and the
// runtime's, signed with another under "runtime", are polled from a
// bundle server: both activate, and the sidecar decides with both.
func TestDocsKubernetesSidecar(t *testing.T) {
	t.Parallel()
	blocks := docBlocks(t, "../docs/bundles.md", "<!-- k8s-sidecar:")
	if len(blocks) != 1 {
		t.Fatalf("docs/bundles.md holds %d k8s-sidecar blocks, want 1", len(blocks))
	}
	pod := readPod(t, blocks[0])
	if pod.image != "openpolicyagent/opa:"+opaVersion(t) {
		t.Errorf("the example runs %s, want the OPA this project pins (%s)", pod.image, opaVersion(t))
	}
	hub := newBundleServer(t)
	hub.set("/bundles/hcp.tar.gz", readFile(t, buildFile(t, exampleModel(t, acme, defaults), "k8s-1", signingHCP)))
	ext, err := bundles.Read(extDir, nil, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	runtime, err := bundles.Build(ext, &bundles.Signing{KeyFile: keys + "other-rsa.key", KeyID: "runtime"})
	if err != nil {
		t.Fatal(err)
	}
	hub.set("/bundles/runtime.tar.gz", runtime)
	volumes := pod.writeVolumes(t, map[string]string{"hcp.pub": keys + "rsa.pub", "runtime.pub": keys + "other-rsa.pub"})
	var env []string
	for name, value := range pod.env {
		if name == "BUNDLE_SERVER_URL" {
			value = hub.URL // the bundle server is the test's
		}
		env = append(env, name+"="+value)
	}
	s := startOPAWith(t, opaProcess{env: env}, pod.localArgs(t, volumes)...)
	s.waitHealthy(t)
	if code := s.code(t, carol); code != "allowed" {
		t.Errorf("carol's mail.get: %s, want allowed (the default grants)", code)
	}
	if code := s.code(t, frozenCall); code != "runtime_denied" {
		t.Errorf("a frozen call: %s, want runtime_denied (the runtime bundle's rule)", code)
	}
}
