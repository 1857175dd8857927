package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/bundletest"
	"github.com/hcp-rego/hcp-rego/internal/oci"
	"github.com/hcp-rego/hcp-rego/internal/registrytest"
)

// TestBundlesASidecarMisreads gives every command that reads a bundle
// (eval --bundle and permissions --bundle, with and without --ext, replay
// --bundle of a file, with and without --ext, and of a REF, test with a
// case file that names it, with and without ext, matrix --bundle, push,
// pull)
// each change of a built bundle that an OPA sidecar would read differently
// from the embedded evaluator (docs/bundles.md: roots not ours,
// WebAssembly, a module or data outside the roots): exit 2, nothing on
// stdout, the bundle named and what is wrong; push asks the registry
// nothing, pull writes nothing. The bundle as built passes every command.
func TestBundlesASidecarMisreads(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir()) // no credentials, whatever the machine's
	dir, _ := fixture(t, map[string]string{"ext/ext.rego": "package hcp.ext\n\ndeny contains \"frozen\" if input.frozen\n"})
	m, err := compile.Checked([]string{filepath.Join(dir, "pack")}, []string{filepath.Join(dir, "grants.json")})
	if err != nil {
		t.Fatal(err)
	}
	good, err := compile.Compile(m, "")
	if err != nil {
		t.Fatal(err)
	}
	asBuilt := bundletest.Misread{Name: "as built"} // Words "": not refused
	reg := registrytest.New(t)
	for i, mis := range append([]bundletest.Misread{asBuilt}, bundletest.Misreads...) {
		t.Run(mis.Name, func(t *testing.T) {
			data, err := misreadTarball(good, mis)
			if err != nil {
				t.Fatal(err)
			}
			r := misreadRuns{dir: dir, file: writeBundleFile(t, t.TempDir(), data),
				ref: fmt.Sprintf("%s/policy/read%d:r1", reg.Host, i), pushTo: fmt.Sprintf("%s/policy/push%d:r1", reg.Host, i),
				out: filepath.Join(t.TempDir(), "pulled.tar.gz")}
			r.cases, r.casesExt = writeMisreadCases(t, r.file, ""), writeMisreadCases(t, r.file, "ext: ["+strconv.Quote(filepath.Join(dir, "ext"))+"]\n")
			if _, err := (oci.Remote{PlainHTTP: true}).Push(context.Background(), mustRef(t, r.ref), data, "misread"); err != nil {
				t.Fatal(err)
			}
			for _, run := range r.runs() {
				o := runInProcess(t, len(data), run.args...)
				want := run.name + ": bundle refused: " + mis.Words
				switch {
				case mis.Words == "" && o.code != exitOK:
					t.Errorf("%s: exit %d, stderr %.300q; want exit 0", run.args[0], o.code, o.stderr)
				case mis.Words != "" && (o.code != exitBadInput || o.stdout != "" || !strings.HasPrefix(o.stderr, want)):
					t.Errorf("%s: exit %d, stdout %.200q, stderr %.300q; want exit 2 and %s...", run.args[0], o.code, o.stdout, o.stderr, want)
				}
			}
			if mis.Words == "" {
				return
			}
			for _, req := range reg.Requests() {
				if strings.Contains(req, "/policy/push"+fmt.Sprint(i)+"/") {
					t.Errorf("push asked the registry %s for a bundle it refused", req)
				}
			}
			if _, err := os.Stat(r.out); !os.IsNotExist(err) {
				t.Errorf("pull wrote %s: %v", r.out, err)
			}
		})
	}
}

// misreadTarball is good with mis's change, or as built when mis changes nothing.
func misreadTarball(good *bundle.Bundle, mis bundletest.Misread) ([]byte, error) {
	if mis.Words == "" {
		return bundles.Build(good, nil)
	}
	return mis.Tarball(good)
}

// misreadRuns are where one bundle is, as a file and at a REF, and where
// push and pull put it.
type misreadRuns struct {
	dir, file, ref, pushTo, out string
	// cases and casesExt are folders of a case file that names the
	// bundle, the second with the runtime's rules.
	cases, casesExt string
}

// writeMisreadCases writes a folder with a case file that names bundle,
// with head above its cases, and returns the folder. Its case passes on
// any bundle hcp-rego builds.
func writeMisreadCases(t *testing.T, bundle, head string) string {
	t.Helper()
	dir := t.TempDir()
	text := "bundles: [" + strconv.Quote(bundle) + "]\n" + head + "cases:\n  - { name: garbage, input: {}, want: { code: invalid_input } }\n"
	if err := os.WriteFile(filepath.Join(dir, "b.cases.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runs are the command lines that read the bundle, each with the name its
// refusal starts with.
func (r misreadRuns) runs() []struct {
	name string
	args []string
} {
	input, ext := filepath.Join(r.dir, "input.json"), filepath.Join(r.dir, "ext")
	return []struct {
		name string
		args []string
	}{
		{r.file, []string{"eval", "--bundle", r.file, "--input", input}},
		{r.file, []string{"eval", "--bundle", r.file, "--input", input, "--ext", ext}},
		{r.file, []string{"permissions", "--bundle", r.file, "--input", input}},
		{r.file, []string{"permissions", "--bundle", r.file, "--input", input, "--ext", ext}},
		{r.file, []string{"replay", "--bundle", r.file, input}},
		{r.file, []string{"replay", "--bundle", r.file, input, "--ext", ext}},
		{r.ref, []string{"replay", "--bundle", r.ref, "--plain-http", input}},
		{r.file, []string{"test", r.cases}},
		{r.file, []string{"test", r.casesExt}},
		{r.file, []string{"matrix", "--bundle", r.file}},
		{r.file, []string{"push", r.file, r.pushTo, "--plain-http"}},
		{r.ref, []string{"pull", r.ref, "-o", r.out, "--plain-http"}},
	}
}

// mustRef parses an OCI reference.
func mustRef(t *testing.T, s string) oci.Reference {
	t.Helper()
	ref, err := oci.ParseReference(s)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}
