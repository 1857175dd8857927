package policy

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path"
	"path/filepath"
)

// signaturesFile is where OPA's bundle keeps its signatures.
const signaturesFile = ".signatures.json"

// SignedUnverified lists the bundles read without a key to verify them
// with that are signed: a sidecar refuses a signed bundle it has no key
// for, so a command that decides with one silently would vouch for what
// no sidecar loads. OPA's reader, told to skip verification, skips the
// signatures too, so each bundle's entries are looked at again, up to
// twice the bytes its limits allow in all (the entries' contents and what
// a .tar.gz holds besides: bundles.Limits.TotalBytes).
func (p *Policy) SignedUnverified() []string {
	if p.reader.Verify != nil {
		return nil
	}
	var found []string
	for _, name := range p.read {
		if signed(name, 2*p.reader.Limits.TotalBytes) {
			found = append(found, name)
		}
	}
	return found
}

// signed reports whether the bundle at p, a folder or a .tar.gz, holds
// OPA's signatures file, looking at most at max bytes of a .tar.gz's
// uncompressed stream. A bundle that cannot be looked at again counts as
// unsigned: it was read once, and what changed since is not this check's.
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
