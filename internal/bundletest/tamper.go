// Package bundletest holds what tests do to built bundles: changing one
// byte of one module, as an attacker or a broken mirror would. It rewrites
// an archive for tests only; bundles are always written with OPA's writer.
package bundletest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

// FlipByte returns a copy of a bundle tarball in which one letter of the
// first comment of the named member (e.g. "/hcp/authz/gate.rego") has its
// case flipped, so the module still parses but no longer matches its
// signature.
func FlipByte(data []byte, member string) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	tr := tar.NewReader(zr)
	found := false
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		if hdr.Name == member {
			i := bytes.Index(body, []byte("# ")) + 2
			body[i] ^= 0x20
			found = true
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("no member %s", member)
	}
	return out.Bytes(), nil
}
