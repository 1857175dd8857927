package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/oci"
	"github.com/hcp-rego/hcp-rego/internal/registrytest"
)

// TestBundleReadersCheckProvenance gives every command that reads a
// bundle (as TestBundlesASidecarMisreads does) the fixture's bundle with
// one sha256 of its list of sources changed: the manifest names the list
// by its digest, and a bundle whose list is not the one named is refused
// (exit 2, nothing on stdout, the bundle named); pull writes nothing.
func TestBundleReadersCheckProvenance(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir()) // no credentials, whatever the machine's
	dir, _ := fixture(t, map[string]string{"ext/ext.rego": "package hcp.ext\n\ndeny contains \"frozen\" if input.frozen\n"})
	good := buildGood(t, dir)
	var data map[string]any
	if err := json.Unmarshal(bundleMember(t, good, "/data.json"), &data); err != nil {
		t.Fatal(err)
	}
	base, _ := data["hcp_grants"].(map[string]any)["base"].(map[string]any)
	sources, _ := base["sources"].(map[string]any)
	grants := filepath.ToSlash(filepath.Join(dir, "grants.json"))
	if _, ok := sources[grants]; !ok || len(sources) != 3 {
		t.Fatalf("hcp_grants.base.sources %v: want the pack's two files and %s", sources, grants)
	}
	sources[grants] = strings.Repeat("0", 64)
	changed, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	tampered, err := os.ReadFile(replacedFile(t, dir, good, "/data.json", changed))
	if err != nil {
		t.Fatal(err)
	}
	reg := registrytest.New(t)
	r := misreadRuns{dir: dir, file: writeBundleFile(t, t.TempDir(), tampered),
		ref: reg.Host + "/policy/read:r1", pushTo: reg.Host + "/policy/push:r1", out: filepath.Join(t.TempDir(), "pulled.tar.gz")}
	r.cases, r.casesExt = writeMisreadCases(t, r.file, ""), writeMisreadCases(t, r.file, "ext: ["+strconv.Quote(filepath.Join(dir, "ext"))+"]\n")
	if _, err := (oci.Remote{PlainHTTP: true}).Push(context.Background(), mustRef(t, r.ref), tampered, "tampered"); err != nil {
		t.Fatal(err)
	}
	for _, run := range r.runs() {
		o := runInProcess(t, len(tampered), run.args...)
		want := run.name + ": bundle refused: .manifest's metadata.hcp names sources that its data does not hold (data.hcp_grants.base.sources lists 3 files of sha256 "
		if o.code != exitBadInput || o.stdout != "" || !strings.HasPrefix(o.stderr, want) {
			t.Errorf("%s: exit %d, stdout %.200q, stderr %.300q; want exit 2 and %s...", run.args[0], o.code, o.stdout, o.stderr, want)
		}
	}
	if _, err := os.Stat(r.out); !os.IsNotExist(err) {
		t.Errorf("pull wrote %s: %v", r.out, err)
	}
}

// bundleMember is the content of the member name of the .tar.gz data.
func bundleMember(t *testing.T, data []byte, name string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for tr := tar.NewReader(zr); ; {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("no %s in the bundle: %v", name, err)
		}
		if h.Name == name {
			body, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return body
		}
	}
}
