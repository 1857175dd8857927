package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileFiles are the contents of a bad input file, by kind of badness.
// A nil content means "no file"; "DIR" makes a directory in its place.
func hostileFiles() map[string][]byte {
	return map[string][]byte{
		"missing":        nil,
		"directory":      []byte("DIR"),
		"empty":          {},
		"array":          []byte("[]"),
		"invalid JSON":   []byte(`{"id": "x",`),
		"NaN":            []byte(`{"id": NaN}`),
		"Infinity":       []byte(`{"id": Infinity}`),
		"bad UTF-8":      []byte("{\"id\": \"\xc3\x28\"}"),
		"deep nesting":   []byte(strings.Repeat("[", 200000) + strings.Repeat("]", 200000)),
		"30 MB string":   []byte(`{"id": "` + strings.Repeat("a", 30<<20) + `"}`),
		"duplicate keys": []byte(`{"id": "x", "id": "y"}`),
	}
}

// writeHostile writes content at path as hostileFiles describes it.
func writeHostile(t *testing.T, path string, content []byte) {
	t.Helper()
	switch {
	case content == nil:
		return
	case string(content) == "DIR":
		if err := os.MkdirAll(path, 0o755); err != nil {
			t.Fatal(err)
		}
	default:
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runIn runs hcp-rego in-process in dir and returns its exit code and
// output.
func runIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errOut bytes.Buffer
	code := run(args, streams{in: strings.NewReader(""), out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

func TestHostileInputs(t *testing.T) {
	good := map[string]string{
		"manifest.json": `{"id": "p", "commands": {"a": {}}}`,
		"policy.json":   `{"surface_id": "p", "verbs": {"a": {"operation": "read", "privacy": {"land": "personal"}}}}`,
	}
	for _, target := range []string{"pack/manifest.json", "pack/policy.json", "grants.json"} {
		for kind, content := range hostileFiles() {
			t.Run(target+"/"+kind, func(t *testing.T) {
				dir := t.TempDir()
				os.MkdirAll(filepath.Join(dir, "pack"), 0o755)
				for name, text := range good {
					os.WriteFile(filepath.Join(dir, "pack", name), []byte(text), 0o644)
				}
				os.WriteFile(filepath.Join(dir, "grants.json"), []byte(`{"grants": []}`), 0o644)
				os.Remove(filepath.Join(dir, target))
				writeHostile(t, filepath.Join(dir, target), content)

				code, out, errOut := runIn(t, dir, "lint", "pack", "--grants", "grants.json")
				if code != exitBadInput {
					t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitBadInput, errOut)
				}
				if out != "" {
					t.Errorf("stdout not empty: %q", out)
				}
				if !strings.HasPrefix(errOut, target+":") {
					t.Errorf("stderr does not start with the file name %s:\n%.300s", target, errOut)
				}
			})
		}
	}
}
