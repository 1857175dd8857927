package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitPackRuns runs what init pack writes, for ids that a careless
// template would break (a YAML number, boolean or null; the longest id),
// through lint, build and test with full coverage: green as written.
func TestInitPackRuns(t *testing.T) {
	for _, id := range []string{"billing", "0", "0x1f", "1e5", "true", "null", "a-b_c", strings.Repeat("z", 244)} {
		t.Run(id[:min(len(id), 16)], func(t *testing.T) {
			dir := t.TempDir()
			hcp := func(args ...string) string {
				t.Helper()
				var out, errs bytes.Buffer
				if code := run(args, streams{out: &out, err: &errs}); code != 0 {
					t.Fatalf("hcp-rego %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errs.String())
				}
				return out.String()
			}
			hcp("init", "pack", id, "-o", dir)
			grants := filepath.Join(dir, "grants", id+".json")
			hcp("lint", filepath.Join(dir, "packs"), "--grants", grants)
			hcp("build", filepath.Join(dir, "packs"), "--grants", grants, "-o", filepath.Join(t.TempDir(), "b.tar.gz"))
			if out := hcp("test", "--coverage", "--threshold", "100", dir); !strings.HasSuffix(out, "\n9 passed, 0 failed\n") {
				t.Errorf("hcp-rego test:\n%s", out)
			}
		})
	}
}

// TestInitPackRefuses: a name that is not a pack id, or a file already
// there, is exit 2 with one line on stderr, and nothing on stdout.
func TestInitPackRefuses(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	if code := run([]string{"init", "pack", "ok", "-o", dir}, streams{out: &out, err: &errs}); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, tt := range []struct{ name, want string }{
		{strings.Repeat("z", 245), "pack id of 245 characters: at most 244, so that the case file's name (ID.cases.yaml) fits in 255 bytes"},
		{"a\x1b[2Jb", `pack id "a\x1b[2Jb": want`},
		{"ok", "already exist; nothing written"},
	} {
		out.Reset()
		errs.Reset()
		code := run([]string{"init", "pack", tt.name, "-o", dir}, streams{out: &out, err: &errs})
		if code != exitBadInput || out.Len() != 0 || strings.Count(errs.String(), "\n") != 1 || !strings.Contains(errs.String(), tt.want) {
			t.Errorf("init pack %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.name, code, out.String(), errs.String(), tt.want)
		}
	}
}
