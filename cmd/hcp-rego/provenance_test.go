package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalChecksProvenance gives eval --bundle the fixture's bundle with
// one sha256 of its list of sources changed: the manifest names the list
// by its digest, and a bundle whose list is not the one named is refused
// (exit 2, the bundle named), as pull and push refuse it.
func TestEvalChecksProvenance(t *testing.T) {
	dir, _ := fixture(t, nil)
	good := buildGood(t, dir)
	var data map[string]any
	if err := json.Unmarshal(bundleMember(t, good, "/data.json"), &data); err != nil {
		t.Fatal(err)
	}
	sources, _ := data["hcp_grants"].(map[string]any)["sources"].(map[string]any)
	grants := filepath.ToSlash(filepath.Join(dir, "grants.json"))
	if _, ok := sources[grants]; !ok || len(sources) != 3 {
		t.Fatalf("hcp_grants.sources %v: want the pack's two files and %s", sources, grants)
	}
	sources[grants] = strings.Repeat("0", 64)
	changed, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	bundle := replacedFile(t, dir, good, "/data.json", changed)
	o := runInProcess(t, 0, "eval", "--bundle", bundle, "--input", filepath.Join(dir, "input.json"))
	want := bundle + ": bundle refused: .manifest's metadata.hcp names sources that its data does not hold (data.hcp_grants.sources lists 3 files of sha256 "
	if o.code != exitBadInput || o.stdout != "" || !strings.HasPrefix(o.stderr, want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %s...", o.code, o.stdout, o.stderr, want)
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
