package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"path/filepath"
	"testing"
)

// TestHostileBundleEmptyEntries gives eval --bundle the archive of the
// review: a good bundle and 480,000 empty entries, 3.4 MB compressed,
// which it read in 362 MB as entries that counted for nothing. Every
// entry counts (docs/bundles.md, "Reading limits"), 1 KiB besides its
// content, files and folders alike: exit 2, the limit in all named, within
// what the limit lets a reader hold. The same bundle with 1,000 empty
// files is decided.
func TestHostileBundleEmptyEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("reads archives of 480,000 entries")
	}
	dir, _ := fixture(t, nil)
	good := buildGood(t, dir)
	input := filepath.Join(dir, "input.json")
	bound := uint64(bundleBound)
	if raceBuilt() {
		bound *= 4 // as maxAllocation
	}
	for _, c := range []struct {
		name string
		typ  byte
		n    int
		code int
	}{
		{"480,000 empty files", tar.TypeReg, 480_000, exitBadInput},
		{"480,000 empty folders", tar.TypeDir, 480_000, exitBadInput},
		{"1,000 empty files", tar.TypeReg, 1_000, exitOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			bundle := withEntries(t, dir, good, c.typ, c.n)
			o := runWithin(t, bound, "eval", "--bundle", bundle, "--input", input)
			want := bundle + ": bundle refused: its files are larger than the limit of " + totalLimit + " in all, uncompressed, each entry counted as 1 KiB besides its content; --max-bundle-bytes raises it\n"
			if c.code == exitOK {
				want = ""
			}
			if o.code != c.code || o.stderr != want {
				t.Errorf("exit %d, stdout %.200q, stderr %.300q; want exit %d and stderr %q", o.code, o.stdout, o.stderr, c.code, want)
			}
		})
	}
}

// withEntries writes the bundle good with n empty entries of type typ
// after its files.
func withEntries(t *testing.T, dir string, good []byte, typ byte, n int) string {
	t.Helper()
	return tarball(t, dir, func(w io.Writer) {
		zr, err := gzip.NewReader(bytes.NewReader(good))
		if err != nil {
			t.Fatal(err)
		}
		tr, tw := tar.NewReader(zr), tar.NewWriter(w)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			tw.WriteHeader(h)
			io.Copy(tw, tr)
		}
		for i := range n {
			name := fmt.Sprintf("pad/%07d", i)
			if typ == tar.TypeDir {
				name += "/"
			}
			tw.WriteHeader(&tar.Header{Name: name, Typeflag: typ, Mode: 0o644})
		}
		tw.Close()
	})
}
