package main

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// signaturesFile is where OPA's bundle keeps its signatures.
const signaturesFile = ".signatures.json"

// noteUnverified says on w that the bundle read from bundlePath with no
// --verification-key is signed and went unchecked: a sidecar refuses a
// signed bundle it has no key for, so a silent local run would vouch for
// what no sidecar loads. OPA's reader, told to skip verification, skips
// the signatures too, so the bundle's entries are looked at again, up to
// twice the bytes the bundle's limits allow in all (the entries' contents
// and what a .tar.gz holds besides: bundles.Limits.TotalBytes).
func noteUnverified(w io.Writer, bundlePath string, verified bool, lim bundles.Limits) {
	if bundlePath == "" || verified || !signed(bundlePath, 2*lim.TotalBytes) {
		return
	}
	fmt.Fprintf(w, "note: %s is signed and its signature was not checked (a sidecar refuses a signed bundle it has no key for): give --verification-key, and --verification-key-id unless the key id is \"default\", to check it as a sidecar does\n",
		printable.Quote(bundlePath))
}

// signed reports whether the bundle at p, a folder or a .tar.gz, holds
// OPA's signatures file, looking at most at max bytes of a .tar.gz's
// uncompressed stream. A bundle that cannot be looked at again counts as
// unsigned: it was read once, and what changed since is not this note's.
func signed(p string, max int64) bool {
	info, err := os.Stat(p)
	if err != nil {
		return false
	}
	if info.IsDir() {
		_, err := os.Lstat(filepath.Join(p, signaturesFile))
		return err == nil
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return false
	}
	tr := tar.NewReader(io.LimitReader(zr, max))
	for {
		h, err := tr.Next()
		if err != nil {
			return false
		}
		if path.Clean("/"+h.Name) == "/"+signaturesFile && h.Typeflag != tar.TypeDir {
			return true
		}
	}
}
