package main

import (
	"os"
	"strings"
	"testing"
)

// TestBuildRevisionNotUTF8: a --revision that is not UTF-8 is bad input,
// and nothing is written; JSON wrote it with U+FFFD in its place, so the
// manifest named another revision than the one given.
func TestBuildRevisionNotUTF8(t *testing.T) {
	mixedTree(t)
	code, _, stderr := runTestCLI(t, "build", "shop", "--grants", "grants.json", "-o", "b.tar.gz", "--revision", "r\xff1")
	if code != 2 || !strings.Contains(stderr, `--revision "r\xff1": not valid UTF-8`) {
		t.Errorf("exit %d, stderr %q: want 2 and the revision named", code, stderr)
	}
	if _, err := os.Stat("b.tar.gz"); err == nil {
		t.Error("a bundle was written")
	}
}
