package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// TestHostileBundles gives eval --bundle files that are no bundle, or a
// broken one: exit 2, nothing on stdout, a short message that starts with
// the bundle's path.
func TestHostileBundles(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, dir string) string // returns the --bundle path
	}{
		{name: "missing", make: func(t *testing.T, dir string) string { return filepath.Join(dir, "nowhere.tar.gz") }},
		{name: "empty file", make: func(t *testing.T, dir string) string { return writeBundleFile(t, dir, nil) }},
		{name: "not gzip", make: func(t *testing.T, dir string) string {
			return writeBundleFile(t, dir, []byte(goodFiles["grants.json"]))
		}},
		{name: "truncated", make: func(t *testing.T, dir string) string {
			good := buildGood(t, dir)
			return writeBundleFile(t, dir, good[:len(good)/2])
		}},
		{name: "gzip of garbage", make: func(t *testing.T, dir string) string {
			return tarball(t, dir, func(w io.Writer) { w.Write([]byte(strings.Repeat("not a tar header ", 64))) })
		}},
		{name: "a folder that holds no bundle",
			make: func(t *testing.T, dir string) string { return filepath.Join(dir, "pack") }},
		{name: "a module past the limit of a file",
			make: func(t *testing.T, dir string) string {
				return withZeros(t, dir, nil, "hcp/authz/x.rego", bundles.DefaultLimits.FileBytes+2<<20)
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := fixture(t, nil)
			bundle := c.make(t, dir)
			info, _ := os.Stat(bundle)
			size := 0
			if info != nil && !info.IsDir() {
				size = int(info.Size())
			}
			o := runInProcess(t, size, "eval", "--bundle", bundle, "--input", filepath.Join(dir, "input.json"))
			if o.code != exitBadInput || o.stdout != "" || !strings.HasPrefix(o.stderr, bundle+": ") || len(o.stderr) > 4096 {
				t.Errorf("exit %d, stdout %q, stderr %.500q (%d bytes); want exit 2 and a short message starting %s: ", o.code, o.stdout, o.stderr, len(o.stderr), bundle)
			}
		})
	}
}

// buildGood builds the fixture's bundle and returns its bytes.
func buildGood(t *testing.T, dir string) []byte {
	t.Helper()
	out := filepath.Join(dir, "good.tar.gz")
	if o := runInProcess(t, 0, "build", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"), "-o", out); o.code != exitOK {
		t.Fatalf("build: exit %d: %s", o.code, o.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeBundleFile(t *testing.T, dir string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, "hostile.tar.gz")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// tarball writes a gzip stream whose content write gives, compressed
// fast: tens of MiB of zeros take seconds at the default level under the
// race detector.
func tarball(t *testing.T, dir string, write func(io.Writer)) string {
	t.Helper()
	path := filepath.Join(dir, "hostile.tar.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	write(zw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// oneModule writes a bundle that holds one module, name, and returns its
// path.
func oneModule(t *testing.T, dir, name, src string) string {
	t.Helper()
	return tarball(t, dir, func(w io.Writer) {
		tw := tar.NewWriter(w)
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(src))})
		tw.Write([]byte(src))
		tw.Close()
	})
}

// TestBundleModuleErrorPositioned checks that a module of a bundle that
// does not parse is named inside the bundle at line and column, one
// problem a line, without the source lines and carets OPA quotes.
func TestBundleModuleErrorPositioned(t *testing.T) {
	dir, _ := fixture(t, nil)
	bundle := oneModule(t, dir, "/hcp/authz/x.rego", "package hcp.authz\n\nx := \n")
	o := runInProcess(t, 0, "eval", "--bundle", bundle, "--input", filepath.Join(dir, "input.json"))
	line := regexp.MustCompile(`^` + regexp.QuoteMeta(bundle) + `: bundle refused: hcp/authz/x\.rego:4:\d+: unexpected eof token`)
	lines := strings.Split(strings.TrimSuffix(o.stderr, "\n"), "\n")
	if o.code != exitBadInput || o.stdout != "" || len(lines) == 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and the module's errors", o.code, o.stdout, o.stderr)
	}
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Errorf("stderr line %q; want %s", l, line)
		}
	}
}

// TestBundleModuleNamePrintable checks that a module name of a refused
// bundle that holds a control character is quoted, so that the error
// cannot send terminal escapes.
func TestBundleModuleNamePrintable(t *testing.T) {
	dir, _ := fixture(t, nil)
	bundle := oneModule(t, dir, "/hcp/authz/x\x1b[31m.rego", "package hcp.authz\n\nx := \n")
	o := runInProcess(t, 0, "eval", "--bundle", bundle, "--input", filepath.Join(dir, "input.json"))
	if o.code != exitBadInput || strings.Contains(o.stderr, "\x1b") || !strings.Contains(o.stderr, `\x1b[31m.rego`) {
		t.Errorf("exit %d, stderr %q; want exit 2 and the module name quoted", o.code, o.stderr)
	}
}

// withFile writes, in dir, the bundle good with one more file, name,
// holding body, and returns its path.
func withFile(t *testing.T, dir string, good []byte, name string, body []byte) string {
	t.Helper()
	return tarball(t, dir, func(w io.Writer) {
		tw := tar.NewWriter(w)
		copyEntries(t, tw, good)
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))})
		tw.Write(body)
		tw.Close()
	})
}

// copyEntries writes the entries of the .tar.gz good, if any, to tw.
func copyEntries(t *testing.T, tw *tar.Writer, good []byte) {
	t.Helper()
	if good == nil {
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	for tr := tar.NewReader(zr); ; {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		tw.WriteHeader(h)
		io.Copy(tw, tr)
	}
}

// withZeros writes, in dir, the bundle good (nil for none) with one more
// file, name, of size bytes of zeros (a whole number of MiB), and returns
// its path. The zeros are gzip members of a MiB (a gzip reader reads
// members as one stream), compressed once, so that a test pays for
// reading a file past the limit, not for writing it.
func withZeros(t *testing.T, dir string, good []byte, name string, size int64) string {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	copyEntries(t, tw, good)
	tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: size})
	zw.Close()
	for range size >> 20 {
		out.Write(zeroMiB())
	}
	zw = gzip.NewWriter(&out)
	zw.Write(make([]byte, 1024)) // the end of the archive
	zw.Close()
	return writeBundleFile(t, dir, out.Bytes())
}

// zeroMiB is a MiB of zeros as a gzip member, made once.
var zeroMiB = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	return buf.Bytes()
})

// TestBundleTypeErrorNamed checks that a module of a bundle that parses
// but does not type-check is named inside the bundle, after the bundle's
// path, with a control character in its name quoted, its errors in line
// order.
func TestBundleTypeErrorNamed(t *testing.T) {
	dir, _ := fixture(t, nil)
	good := buildGood(t, dir)
	src := "package hcp.authz\n\nyy := nofn(1)\n" + strings.Repeat("\n", 7) + "zz := nofn(2)\n"
	bundle := withFile(t, dir, good, "/hcp/authz/x\x1b[31m.rego", []byte(src))
	o := runInProcess(t, 0, "eval", "--bundle", bundle, "--input", filepath.Join(dir, "input.json"))
	want := bundle + `: "hcp/authz/x\x1b[31m.rego":3:7: undefined function nofn` + "\n" +
		bundle + `: "hcp/authz/x\x1b[31m.rego":11:7: undefined function nofn` + "\n"
	if o.code != exitBadInput || o.stderr != want {
		t.Errorf("exit %d, stderr %q; want exit 2 and %q", o.code, o.stderr, want)
	}
}

// The bundle of issue 15: files of 60 MiB of zeros, each under the limit
// of a file (64 MiB then), together over the limit in all (256 MiB, as
// large as a file now). Issue 15 took 48 of them (2 MB gzipped) to 3 GB;
// 8 (480 MiB by default, four files past the limit) keep the test
// affordable while a reader that holds every file before judging the
// total (OPA's tarball loader) still allocates far past the bound.
const (
	zeroFileBytes = 60 << 20
	zeroFiles     = bundles.MaxTotalBytes/zeroFileBytes + 4
	// bundleBound is what refusing it may allocate: the bytes in all
	// that the default limit lets a reader hold, and a base.
	bundleBound = bundles.MaxTotalBytes + baseAllocation
)

// totalLimit names the default limit in all, as a refusal names it.
var totalLimit = fmt.Sprintf("%d MiB", bundles.DefaultLimits.TotalBytes>>20)

// zeroFile is one zeroFileBytes file of zeros as a gzip member, made once.
var zeroFile = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	zw.Write(make([]byte, zeroFileBytes))
	zw.Close()
	return buf.Bytes()
})

// zeroTarball writes the .tar.gz of zeroFiles modules of zeros. Each
// member of the tar is a gzip member of its own (a gzip reader reads them
// as one stream), so that the 60 MiB of zeros are compressed once.
func zeroTarball(t *testing.T, dir string) string {
	t.Helper()
	var out bytes.Buffer
	member := func(data []byte) {
		zw := gzip.NewWriter(&out)
		zw.Write(data)
		zw.Close()
	}
	for i := range zeroFiles {
		var hdr bytes.Buffer
		tw := tar.NewWriter(&hdr)
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("/hcp/authz/z%d.rego", i), Mode: 0o644, Size: zeroFileBytes})
		tw.Flush()
		member(hdr.Bytes())
		out.Write(zeroFile())
	}
	member(make([]byte, 1024)) // the end of the archive
	return writeBundleFile(t, dir, out.Bytes())
}

// zeroFolder writes the same files into a bundle folder, as sparse files
// that take no disk space.
func zeroFolder(t *testing.T, dir string) string {
	t.Helper()
	root := filepath.Join(dir, "zeros")
	if err := os.MkdirAll(filepath.Join(root, "hcp", "authz"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range zeroFiles {
		f, err := os.Create(filepath.Join(root, "hcp", "authz", fmt.Sprintf("z%d.rego", i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(zeroFileBytes); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return root
}

// TestHostileBundleTotal gives eval --bundle files that are each under the
// limit of a file but together over the limit in all, as a .tar.gz (with
// and without a verification key) and as a folder: exit 2, the limit
// named, and the run allocates no more than the limit lets it hold.
func TestHostileBundleTotal(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, dir string) string
		key  []string
	}{
		{name: "tarball", make: zeroTarball},
		{name: "tarball with a verification key", make: zeroTarball, key: []string{"--verification-key", "../../testdata/keys/rsa.pub"}},
		{name: "folder", make: zeroFolder},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := fixture(t, nil)
			bundle := c.make(t, dir)
			args := append([]string{"eval", "--bundle", bundle, "--input", filepath.Join(dir, "input.json")}, c.key...)
			o := runWithin(t, bundleBound, args...)
			if o.code != exitBadInput || o.stdout != "" || !strings.HasPrefix(o.stderr, bundle+": ") || !strings.Contains(o.stderr, "limit of "+totalLimit+" in all") {
				t.Errorf("exit %d, stdout %q, stderr %.500q; want exit 2 and a message that starts %s: and names the limit of %s in all", o.code, o.stdout, o.stderr, bundle, totalLimit)
			}
		})
	}
}

// TestMaxBundleBytes checks that --max-bundle-bytes raises both limits: a
// bundle with a file a MiB over the default limit of a file (257 MiB) is
// refused by default with the flag named, and decided with the flag,
// holding that file once. A value that is no size, or out of range, is a
// usage error.
func TestMaxBundleBytes(t *testing.T) {
	dir, _ := fixture(t, nil)
	good := buildGood(t, dir)
	bundle := withZeros(t, dir, good, "/pad.txt", bundles.DefaultLimits.FileBytes+1<<20)
	input := filepath.Join(dir, "input.json")
	o := runWithin(t, bundleBound, "eval", "--bundle", bundle, "--input", input)
	want := fmt.Sprintf("%s: bundle refused: pad.txt is larger than the limit of %d MiB for one file; --max-bundle-bytes raises it\n", bundle, bundles.DefaultLimits.FileBytes>>20)
	if o.code != exitBadInput || o.stderr != want {
		t.Errorf("default limits: exit %d, stderr %q; want exit 2 and %q", o.code, o.stderr, want)
	}
	raised := sizeText(2 * bundles.DefaultLimits.TotalBytes)
	o = runWithin(t, bundleBound, "eval", "--bundle", bundle, "--input", input, "--max-bundle-bytes", raised)
	if o.code != exitOK || !strings.Contains(o.stdout, `"code": "allowed"`) {
		t.Errorf("--max-bundle-bytes %s: exit %d, stdout %q, stderr %q; want the call allowed", raised, o.code, o.stdout, o.stderr)
	}
	for value, want := range map[string]string{
		"":                       "empty value",
		"256MB":                  `want a size such as 268435456, 256MiB or 1GiB`,
		"-1":                     `want a size such as 268435456, 256MiB or 1GiB`,
		"1KiB":                   "want a size from 1MiB to 1TiB",
		"2048GiB":                "want a size from 1MiB to 1TiB",
		"99999999999999999999":   `want a size such as 268435456, 256MiB or 1GiB`,
		"9999999999999999999GiB": "want a size from 1MiB to 1TiB",
	} {
		o := runInProcess(t, 0, "eval", "--bundle", bundle, "--input", input, "--max-bundle-bytes", value)
		if o.code != exitBadInput || !strings.Contains(o.stderr, want) {
			t.Errorf("--max-bundle-bytes %q: exit %d, stderr %q; want exit 2 and %q", value, o.code, o.stderr, want)
		}
	}
	o = runInProcess(t, 0, "eval", "pack", "--input", input, "--max-bundle-bytes", "1GiB")
	if o.code != exitBadInput || !strings.Contains(o.stderr, "--max-bundle-bytes needs --bundle") {
		t.Errorf("without --bundle: exit %d, stderr %q; want exit 2 and --max-bundle-bytes needs --bundle", o.code, o.stderr)
	}
}

// Hostile data for a bundle under its byte limits that holds more JSON
// values than its limit of values (22,369,621 by default) allows: OPA's
// reader would hold each value in some 100 to 400 bytes.
const (
	zerosBytes = 60 << 20 // {"a":[0,0,...]}: 31 million values in one file
	wideBytes  = 40 << 20 // objects of 26 members: 13 million values a file
)

// zerosData is a data.json of zerosBytes: an array of zeros, made once.
var zerosData = sync.OnceValue(func() []byte {
	data := make([]byte, 0, zerosBytes)
	data = append(data, `{"a":[0`...)
	for len(data) < zerosBytes-3 {
		data = append(data, ',', '0')
	}
	return append(data, ']', '}')
})

// wideData is a data.json of about wideBytes: an object of objects of 26
// one-letter members, each a value and a name, made once.
var wideData = sync.OnceValue(func() []byte {
	var member bytes.Buffer
	for c := 'a'; c <= 'z'; c++ {
		fmt.Fprintf(&member, `"%c":0,`, c)
	}
	inner := "{" + strings.TrimSuffix(member.String(), ",") + "}"
	var b bytes.Buffer
	b.WriteString(`{"k":{`)
	for i := 0; b.Len() < wideBytes; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%06x":%s`, i, inner)
	}
	b.WriteString("}}")
	return b.Bytes()
})

// payloadBytes is the size of the payload of a hostile signature: its
// base64, 61 MiB, is under the limit of a file.
const payloadBytes = 46 << 20

// signatureData is a .signatures.json of one JWT, no signature, whose
// payload lists 24 million files, each 0: OPA's verifier parses the
// payload before it checks the signature. Made once.
var signatureData = sync.OnceValue(func() []byte {
	payload := make([]byte, 0, payloadBytes)
	payload = append(payload, `{"files":[0`...)
	for len(payload) < payloadBytes-3 {
		payload = append(payload, ',', '0')
	}
	payload = append(payload, ']', '}')
	return []byte(`{"signatures":["eyJhbGciOiJSUzI1NiJ9.` + base64.RawURLEncoding.EncodeToString(payload) + `.c2ln"]}`)
})

// filesTarball writes a .tar.gz of the files, in the order given.
func filesTarball(t *testing.T, dir string, files ...tarFile) string {
	t.Helper()
	return tarball(t, dir, func(w io.Writer) {
		tw := tar.NewWriter(w)
		for _, f := range files {
			tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body))})
			tw.Write(f.body)
		}
		tw.Close()
	})
}

// tarFile is one file of a tarball a test writes.
type tarFile struct {
	name string
	body []byte
}

// replacedFile writes, in dir, the bundle good with the file name's
// content replaced by body, and returns its path.
func replacedFile(t *testing.T, dir string, good []byte, name string, body []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	var files []tarFile
	for tr := tar.NewReader(zr); ; {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		if h.Name == name {
			data = body
		}
		files = append(files, tarFile{h.Name, data})
	}
	return filesTarball(t, dir, files...)
}

// TestHostileBundleValues gives eval --bundle bundles under the byte
// limits whose data files hold more values than the limit of values: a
// data.json of zeros (also in place of a signed bundle's data.json, with
// the verification key: OPA's reader parses a file to check its digest),
// a signature whose payload lists millions of files (OPA's verifier
// parses it before it checks the signature), and two data.json files of wide objects, each under the limit but
// together over it, as a .tar.gz and a folder. Exit 2, the file and the
// limit named, and the run allocates no more than the byte limits let it
// hold, where OPA's reader would allocate gigabytes.
func TestHostileBundleValues(t *testing.T) {
	limit := fmt.Sprintf("takes its JSON files past the limit of %d values in all (member names count as values); --max-bundle-bytes raises it\n", bundles.DefaultLimits.Values)
	wide := []tarFile{{"/a/data.json", wideData()}, {"/b/data.json", wideData()}}
	cases := []struct {
		name string
		make func(t *testing.T, dir string) string
		key  []string
		file string // the file named
	}{
		{name: "zeros", file: "data.json", make: func(t *testing.T, dir string) string {
			return filesTarball(t, dir, tarFile{"/data.json", zerosData()})
		}},
		{name: "zeros in a signed bundle", file: "data.json", key: []string{"--verification-key", "../../testdata/keys/rsa.pub"}, make: func(t *testing.T, dir string) string {
			signed := filepath.Join(dir, "signed.tar.gz")
			if o := runInProcess(t, 0, "build", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"), "--signing-key", "../../testdata/keys/rsa.key", "-o", signed); o.code != exitOK {
				t.Fatalf("build: exit %d: %s", o.code, o.stderr)
			}
			good, err := os.ReadFile(signed)
			if err != nil {
				t.Fatal(err)
			}
			return replacedFile(t, dir, good, "/data.json", zerosData())
		}},
		{name: "a signature's payload", file: ".signatures.json", key: []string{"--verification-key", "../../testdata/keys/rsa.pub"}, make: func(t *testing.T, dir string) string {
			return filesTarball(t, dir, tarFile{"/.signatures.json", signatureData()})
		}},
		{name: "wide objects in two files", file: "b/data.json", make: func(t *testing.T, dir string) string {
			return filesTarball(t, dir, wide...)
		}},
		{name: "wide objects in two files of a folder", file: "b/data.json", make: func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "wide")
			for _, f := range wide {
				path := filepath.Join(root, filepath.FromSlash(f.name))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, f.body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			return root
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := fixture(t, nil)
			bundle := c.make(t, dir)
			args := append([]string{"eval", "--bundle", bundle, "--input", filepath.Join(dir, "input.json")}, c.key...)
			o := runWithin(t, bundleBound, args...)
			if want := bundle + ": bundle refused: " + c.file + " " + limit; o.code != exitBadInput || o.stdout != "" || o.stderr != want {
				t.Errorf("exit %d, stdout %q, stderr %.500q; want exit 2 and %q", o.code, o.stdout, o.stderr, want)
			}
		})
	}
}
