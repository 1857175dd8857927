package bundles_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// small are limits that a test can pass cheaply: 1 KiB a file, 4 KiB in
// all, and 341 values (a third of the bytes of a file).
var small = bundles.Limits{FileBytes: 1 << 10, TotalBytes: 4 << 10, Values: 1 << 10 / 3}

// sized is a bundle of files of the given sizes, f0.txt, f1.txt, ...
// (OPA's reader reads and counts them, and keeps none).
type sized []int

// tarball writes the files as a .tar.gz, with extra written after them.
func (s sized) tarball(t *testing.T, extra ...*tar.Header) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	var headers []*tar.Header
	for i, n := range s {
		headers = append(headers, &tar.Header{Name: fmt.Sprintf("f%d.txt", i), Mode: 0o644, Size: int64(n)})
	}
	for _, h := range append(headers, extra...) {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write(make([]byte, h.Size))
	}
	tw.Close()
	zw.Close()
	return writeTemp(t, "b.tar.gz", buf.Bytes())
}

// folder writes the files into a bundle folder.
func (s sized) folder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i, n := range s {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// overInAll is the refusal of a bundle over small's limit in all.
const overInAll = "its files are larger than the limit of 4096 bytes in all, uncompressed, each entry counted as 1 KiB besides its content"

// TestReadLimits reads bundles at and just past each limit, as a .tar.gz
// and as a folder: a bundle at a limit is read, one byte more is refused
// with a *LimitError that names the limit (and the file). Each file
// counts 1 KiB besides its content (docs/bundles.md: every entry counts,
// an empty one too), so that 4 KiB in all is two files of 1 KiB, or four
// empty ones.
func TestReadLimits(t *testing.T) {
	tests := []struct {
		name  string
		files sized
		want  string // "" to read, else the error's tail after "PATH: bundle refused: "
	}{
		{"at both limits", sized{1024, 1024}, ""},
		{"one byte over in all", sized{512, 512, 1}, overInAll},
		{"one file one byte over", sized{1025}, "f0.txt is larger than the limit of 1024 bytes for one file"},
		{"empty files at the limit in all", sized{0, 0, 0, 0}, ""},
		{"one empty file over in all", sized{0, 0, 0, 0, 0}, overInAll},
		{"at the limit in all, then an empty file", sized{1024, 1024, 0}, overInAll},
	}
	for _, tt := range tests {
		for form, path := range map[string]string{"tarball": tt.files.tarball(t), "folder": tt.files.folder(t)} {
			t.Run(tt.name+"/"+form, func(t *testing.T) {
				_, err := bundles.Read(path, nil, small)
				checkLimitError(t, path, err, tt.want)
			})
		}
	}
}

// TestReadArchiveLimit checks that what a .tar.gz holds besides its files
// is bounded too, at twice the total: entries that are no file, which a
// reader reads past, and a gzip stream that expands to nothing.
func TestReadArchiveLimit(t *testing.T) {
	const want = "the archive is larger than 8192 bytes, compressed or not (twice the limit of 4096 bytes in all)"
	t.Run("an entry that is no file", func(t *testing.T) {
		path := sized{1024}.tarball(t, &tar.Header{Name: "z", Typeflag: 'Z', Mode: 0o644, Size: 8 << 10})
		_, err := bundles.Read(path, nil, small)
		checkLimitError(t, path, err, want)
	})
	t.Run("empty gzip members", func(t *testing.T) {
		var empty bytes.Buffer
		gzip.NewWriter(&empty).Close()
		path := writeTemp(t, "b.tar.gz", bytes.Repeat(empty.Bytes(), 8<<10/empty.Len()+1))
		_, err := bundles.Read(path, nil, small)
		checkLimitError(t, path, err, want)
	})
}

// TestReadCountsEveryEntry checks that an entry of a .tar.gz that is no
// file counts as a file does (docs/bundles.md, "Reading limits"): a
// folder's entry, a link, an entry of a type hcp-rego reads past. Each
// counts 1 KiB.
func TestReadCountsEveryEntry(t *testing.T) {
	for _, typ := range []byte{tar.TypeDir, tar.TypeSymlink, 'Z'} {
		t.Run(fmt.Sprintf("type %q", typ), func(t *testing.T) {
			entry := func(i int) *tar.Header {
				return &tar.Header{Name: fmt.Sprintf("e%d/", i), Typeflag: typ, Linkname: "f0.txt", Mode: 0o755}
			}
			path := sized{1024}.tarball(t, entry(0), entry(1))
			if _, err := bundles.Read(path, nil, small); err != nil {
				t.Errorf("a file of 1 KiB and two entries, 4 KiB in all: %v", err)
			}
			path = sized{1024}.tarball(t, entry(0), entry(1), entry(2))
			_, err := bundles.Read(path, nil, small)
			checkLimitError(t, path, err, overInAll)
		})
	}
}

// TestReadEmptyEntriesRefused builds the archive of the review, a bundle
// and 480,000 empty files in 3.4 MB, which eval --bundle read in 362 MB
// (the bundle alone in 27 MB): at 1 KiB an entry it is over the default
// limit of 256 MiB in all, and refused as it is read, before OPA's reader
// holds the entries. So is one of as many empty folders.
func TestReadEmptyEntriesRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two archives of 480,000 entries")
	}
	for _, typ := range []byte{tar.TypeReg, tar.TypeDir} {
		t.Run(fmt.Sprintf("type %q", typ), func(t *testing.T) {
			extra := make([]*tar.Header, 480_000)
			for i := range extra {
				extra[i] = &tar.Header{Name: fmt.Sprintf("pad/%07d", i), Typeflag: typ, Mode: 0o644}
			}
			path := sized{1024}.tarball(t, extra...)
			_, err := bundles.Read(path, nil, bundles.DefaultLimits)
			checkLimitError(t, path, err, fmt.Sprintf("its files are larger than the limit of %d MiB in all, uncompressed, each entry counted as 1 KiB besides its content", bundles.DefaultLimits.TotalBytes>>20))
		})
	}
}

// checkLimitError checks err against the tail want ("" for no error).
func checkLimitError(t *testing.T, path string, err error, want string) {
	t.Helper()
	var over *bundles.LimitError
	switch {
	case want == "" && err != nil:
		t.Errorf("refused: %v", err)
	case want == "":
	case err == nil:
		t.Errorf("read, want %q", want)
	case err.Error() != path+": bundle refused: "+want:
		t.Errorf("error %v\nwant %s: bundle refused: %s", err, path, want)
	case !errors.As(err, &over):
		t.Errorf("error %T, want a *bundles.LimitError", err)
	}
}

// TestLimitsOf checks that one number gives all four limits, in the
// ratio of the defaults, and the defaults themselves.
func TestLimitsOf(t *testing.T) {
	if got := bundles.LimitsOf(bundles.MaxTotalBytes); got != bundles.DefaultLimits {
		t.Errorf("LimitsOf(%d) = %+v, want the defaults %+v", bundles.MaxTotalBytes, got, bundles.DefaultLimits)
	}
	if got, want := bundles.LimitsOf(1<<30), (bundles.Limits{FileBytes: 1 << 30, TotalBytes: 1 << 30, Values: 89_478_485, Terms: 4 << 20}); got != want {
		t.Errorf("LimitsOf(1 GiB) = %+v, want %+v: 1 GiB a file and in all, a twelfth of it values and a 256th terms", got, want)
	}
	if d, want := bundles.DefaultLimits, (bundles.Limits{FileBytes: 256 << 20, TotalBytes: 256 << 20, Values: 22_369_621, Terms: 1 << 20}); d != want {
		t.Errorf("DefaultLimits = %+v, want %+v: 256 MiB a file and in all, 22,369,621 values and 1,048,576 terms", d, want)
	}
	if got := bundles.LimitsOf(1 << 20).Terms; got != 1<<16 {
		t.Errorf("terms %d for 1 MiB, want at least 65,536, room for the library's 6,179", got)
	}
}

// TestReadDecisionBundleWithinLimits checks that a decision bundle is read
// within the limits the caller gives, not only the defaults.
func TestReadDecisionBundleWithinLimits(t *testing.T) {
	path := writeTemp(t, "b.tar.gz", build(t, "", nil))
	if _, err := bundles.ReadDecisionBundle(path, nil, bundles.DefaultLimits); err != nil {
		t.Fatal(err)
	}
	_, err := bundles.ReadDecisionBundle(path, nil, small)
	if err == nil || !strings.Contains(err.Error(), "is larger than the limit of 1024 bytes for one file") {
		t.Errorf("error %v, want a file over the limit of 1024 bytes", err)
	}
}

// TestReadExampleUnderLeastLimits checks that the example bundle, whose
// modules are the library's 6,179 terms, is read under the limits
// of the least --max-bundle-bytes, 1 MiB.
func TestReadExampleUnderLeastLimits(t *testing.T) {
	path := writeTemp(t, "b.tar.gz", build(t, "", nil))
	if _, err := bundles.ReadDecisionBundle(path, nil, bundles.LimitsOf(1<<20)); err != nil {
		t.Error(err)
	}
}
