package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
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

// TestBuildNotesTheReadLimit: a bundle whose modules hold more terms than
// eval --bundle, pull and replay --bundle read by default gets a note that
// says how much --max-bundle-bytes reads it, and that much does.
func TestBuildNotesTheReadLimit(t *testing.T) {
	built, err := compile.Build(compile.BuildOptions{Packs: []string{"../../testdata/packs"}, Grants: []string{"../../testdata/grants/acme.json"}, Output: filepath.Join(t.TempDir(), "b.tar.gz")})
	if err != nil {
		t.Fatal(err)
	}
	if built.Terms < 1000 {
		t.Fatalf("the example bundle's modules hold %d terms: not counted", built.Terms)
	}
	var quiet, noted bytes.Buffer
	noteReadLimit(&quiet, built.Terms, bundles.DefaultLimits.Terms)
	if quiet.Len() != 0 {
		t.Errorf("the example bundle within the default limit: %q", quiet.String())
	}
	noteReadLimit(&noted, built.Terms, 100)
	if !regexp.MustCompile(`^note: the bundle's modules hold [0-9]+ terms, more than the 100 that eval --bundle, pull and replay --bundle read by default; give them --max-bundle-bytes 1MiB or more`).Match(noted.Bytes()) {
		t.Errorf("note %q", noted.String())
	}
	for _, terms := range []int64{1, 65_536, 65_537, 1_048_576, 1_048_577, 3_000_001} {
		size := sizeFor(terms)
		if got := bundles.LimitsOf(size).Terms; got < terms {
			t.Errorf("--max-bundle-bytes %s reads %d terms, fewer than %d", sizeText(size), got, terms)
		}
		if size > minBundleLimit && bundles.LimitsOf(size-1<<20).Terms >= terms {
			t.Errorf("--max-bundle-bytes %s for %d terms: a MiB less reads them too", sizeText(size), terms)
		}
	}
}
