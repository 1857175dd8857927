package bundles

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/loader/filter"

	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// Limits bound what Read reads of a bundle, uncompressed, counted as the
// archive or the folder is read, so that a bundle is refused once it
// passes them, before the rest is read (docs/bundles.md, "Reading
// limits").
type Limits struct {
	// FileBytes bounds each file: as much as TotalBytes in DefaultLimits
	// and LimitsOf, since a bundle build writes is all but one data.json.
	FileBytes int64
	// TotalBytes bounds all the files together, each entry of a .tar.gz
	// (a folder's entry, or any other that is no file, too) and each file
	// of a folder counted as EntryBytes besides its content (docs/bundles.md:
	// every entry counts, an empty one too). What a .tar.gz holds besides
	// that (the headers' long names, the content of entries that are no
	// file) may add as much again, and so may the compressed archive.
	TotalBytes int64
	// Values bounds the JSON values of the files that OPA's reader
	// parses (data.json, .manifest, patch.json, .signatures.json and its
	// signature's payload), all together, each member name of an object
	// counted as one more value. What OPA holds is values, not bytes: a
	// data.json of 60 MiB of [0,0,...] is 31 million values, for which
	// OPA's reader allocates 3.1 GB.
	Values int64
	// Terms bounds the terms that the bundle's Rego modules can make, all
	// together, counted as regolimit.RegoTerms counts them before OPA parses
	// a module. What OPA's parser holds is terms, not bytes: a module of
	// 4 MB of [0,0,...] is 2 million terms, for which eval took 1.7 GB.
	Terms int64
}

// The limits of docs/bundles.md ("Reading limits"): 256 MiB in all, and a
// file as large (64 MiB a file, the bound first asked for, is too little
// for the rows of 10,000 packs), uncompressed,
// 22,369,621 values and 1,048,576 terms, which admit the largest bundles
// build writes for 1,000,000 grants and 10,000 packs. Measured on
// bench/largeset's shapes and on the (90% principal grants of a
// tenant on one command, 10% role grants on a pack, 10,000 tenants),
// 1,000,000 grants in 10 files over 10,000 packs of 50 commands and 2
// triggers, sources named from the set's folder: the largest is a
// data.json of 169.2 MB (161.4 MiB; 156.7 MB of the shape), 11
// entries, 14,807,277 values and the library's 6,179 terms. The packs'
// rows are 123.3 MB and 10,990,001 values of it, the grant tables the
// rest (1,000 packs: 42.9 and 38.6 MB). A file, and the bundle, may hold
// 1.59 times that data.json (room for 190 bytes more a row: longer ids,
// source paths), its values 1.51 times; terms 170 times the library's.
// eval --bundle of that bundle allocated 2.7 GiB and peaked at 2.0 GiB
// resident. The costliest bundles within the limits, measured the same
// way (allocated, peak resident), are a data.json of 22.4 million short
// strings filling 256 MiB (3.1 GiB, 2.1 GiB) and one of zeros at the limit
// of values with a module of a million strings filling the rest (4.2
// GiB, 2.6 GiB; 7.1 and 3.4 GiB at the limits before rows were data,
// 128 MiB a file and 4,194,304 terms).
const (
	MaxTotalBytes = 256 << 20
	MaxFileBytes  = MaxTotalBytes
	MaxValues     = MaxTotalBytes / bytesPerValue
	MaxTerms      = MaxTotalBytes / BytesPerTerm
)

// bytesPerValue is how many bytes of a bundle, in all, the limit of
// values allows one value: 12, a twelfth of a value a byte, 22,369,621 by
// default, as when a file could hold 128 MiB at a sixth of a value a byte:
// what OPA's reader allocates for values did not grow with the file. Real
// data holds, values and names a byte, measured: 0.087 for 10,000 packs
// and 1,000,000 grants of bench/largeset's shape (the rows 0.089, the
// grant tables 0.083) and 0.082 of the issue's, 0.118 for the example set
// (testdata/packs and its two grant files, 1 KB), some 0.05 for 15,000
// grants of three-letter principals in five tenants
// (TestReadDenseGrantsAtByteLimit); .manifest 0.023 to 0.033. So data as
// dense as the rows reaches the limit of values a few percent before the
// limit of bytes: --max-bundle-bytes raises both. At the limit, OPA's
// reader allocates 2.4 GiB for a data.json of zeros (45 MB), 2.4 GiB for
// long member names and 3.1 GiB for short strings filling 256 MiB.
const bytesPerValue = 12

// BytesPerTerm is how many bytes of a bundle, in all, the limit of terms
// allows one term of its Rego modules: 256, or 1,048,576 terms in
// DefaultLimits, as many as regolimit.MaxRegoTerms allows a run's own
// Rego. The library is a bundle's only Rego: measured with
// regolimit.RegoTerms (comments count one each), 6,179 terms in 33 KB. A
// bundle built when each pack was a generated module (1,846,803 terms for
// 10,000 packs) is refused by its roots whatever --max-bundle-bytes
// allows. OPA holds at
// most about 1.2 KB a term (long arrays of numbers or strings; see
// regolimit.MaxRegoTerms): at the limit, a module of zeros (2 MB)
// allocated 1.2 GiB and one of strings filling 256 MiB 1.9 GiB.
const BytesPerTerm = 256

// EntryBytes is what each entry of a bundle counts against the limit in
// all besides its content: 1 KiB, so that what an archive of empty
// entries costs in memory follows the limit too. OPA's reader holds a
// descriptor for every file, and hcp-rego a buffer: measured, an
// archive of the example bundle and 480,000 empty files (3.4 MB
// compressed) took eval --bundle 362 MB at its peak where the bundle
// alone took 27 MB, some 700 bytes a file, and one of 480,000 empty
// folders 1.7 s. At 1 KiB an entry, 256 MiB in all holds at most 262,144
// entries; a bundle build writes has 11 (12 signed).
const EntryBytes = 1 << 10

// DefaultLimits are docs/bundles.md's: 256 MiB in all and as much a file,
// 22,369,621 values in all (MaxValues) and 1,048,576 terms of Rego
// (MaxTerms).
var DefaultLimits = Limits{FileBytes: MaxFileBytes, TotalBytes: MaxTotalBytes, Values: MaxValues, Terms: MaxTerms}

// LimitsOf returns the limits for a bundle of at most total bytes in all,
// a file as large, values a twelfth of the total and terms a 256th (at
// least minTerms), as in DefaultLimits: one number raises all four for a
// very large grant or pack set.
func LimitsOf(total int64) Limits {
	return Limits{FileBytes: total, TotalBytes: total, Values: total / bytesPerValue, Terms: max(total/BytesPerTerm, minTerms)}
}

// minTerms is the least limit of terms that LimitsOf gives, 65,536, for a
// bundle of 16 MiB or less: 10 times the library's 6,179 terms, so that a
// bundle of a few packs is read under the least --max-bundle-bytes (1
// MiB), at some 80 MB at most.
const minTerms = 1 << 16

// LimitError is Read's error for a bundle that passes one of its Limits.
type LimitError struct {
	Path  string // the bundle
	File  string // the file over FileBytes; "" when the bundle is over its total
	Limit int64  // the limit passed
	// Archive is true when the .tar.gz itself, compressed or not, passes
	// twice TotalBytes.
	Archive bool
	// Values is true when File takes the bundle past its limit of values.
	Values bool
	// Terms is true when File, a Rego module, takes the bundle past its
	// limit of terms, at Pos.
	Terms bool
	Pos   problem.Pos
}

func (e *LimitError) Error() string {
	path := printable.LineStart(e.Path)
	switch {
	case e.Terms:
		return fmt.Sprintf("%s: bundle refused: %s:%d:%d takes its Rego modules past the limit of %d terms in all (identifiers, numbers, strings, brackets and operators)", path, printable.Quote(strings.TrimPrefix(e.File, "/")), e.Pos.Line, e.Pos.Col, e.Limit)
	case e.Values:
		return fmt.Sprintf("%s: bundle refused: %s takes its JSON files past the limit of %d values in all (member names count as values)", path, printable.Quote(strings.TrimPrefix(e.File, "/")), e.Limit)
	case e.Archive:
		return fmt.Sprintf("%s: bundle refused: the archive is larger than %s, compressed or not (twice the limit of %s in all)", path, sizeText(e.Limit), sizeText(e.Limit/2))
	case e.File != "":
		return fmt.Sprintf("%s: bundle refused: %s is larger than the limit of %s for one file", path, printable.Quote(strings.TrimPrefix(e.File, "/")), sizeText(e.Limit))
	}
	return fmt.Sprintf("%s: bundle refused: its files are larger than the limit of %s in all, uncompressed, each entry counted as 1 KiB besides its content", path, sizeText(e.Limit))
}

// sizeText renders a limit in MiB when it is a whole number of them.
func sizeText(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// budget counts the bytes read of one bundle, and the values of its JSON
// files, against its limits.
type budget struct {
	path   string
	lim    Limits
	used   int64 // bytes
	values int64
	terms  int64
}

// read reads one file of the bundle whole, through copyN (which copies at
// most n bytes, as io.CopyN does). size is what the tar header or the file
// system says the file holds: a file that would pass a limit by it is
// refused before anything is read, and it sizes the buffer. What is read
// is counted, whatever size said, and so are the values of a file that
// OPA's reader parses (countValues) and the terms of a Rego module
// (countTerms).
func (b *budget) read(name string, size int64, copyN func(io.Writer, int64) (int64, error)) (*bytes.Buffer, error) {
	room := min(b.lim.FileBytes, b.lim.TotalBytes-b.used)
	if size > room {
		return nil, b.over(name, size)
	}
	// Room for size and the read that finds the end, so that the buffer
	// never grows for it.
	buf := bytes.NewBuffer(make([]byte, 0, max(size, 0)+bytes.MinRead))
	n, err := copyN(buf, room+1)
	b.used += n
	if n > room {
		return nil, b.over(name, n)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if err := b.countValues(name, buf.Bytes()); err != nil {
		return nil, err
	}
	if err := b.countTerms(name, buf.Bytes()); err != nil {
		return nil, err
	}
	return buf, nil
}

// entry counts one entry of the bundle, whatever it holds, as EntryBytes.
func (b *budget) entry() error {
	if b.used += EntryBytes; b.used > b.lim.TotalBytes {
		return &LimitError{Path: b.path, Limit: b.lim.TotalBytes}
	}
	return nil
}

// over is the error for a file of n bytes that the budget has no room for.
func (b *budget) over(name string, n int64) error {
	if n > b.lim.FileBytes {
		return &LimitError{Path: b.path, File: name, Limit: b.lim.FileBytes}
	}
	return &LimitError{Path: b.path, Limit: b.lim.TotalBytes}
}

// files is the DirectoryLoader that Read gives OPA's bundle reader. OPA's
// reader asks for every file before it reads any; files reads each whole
// as it is asked for, through the bundle's budget, so that a bundle over
// its limits is refused before the rest of it is read. It takes its
// options where it is made: given one later, it refuses to read.
type files struct {
	next   func() (*bundle.Descriptor, error)
	option string // an option given later
}

// NextFile returns the next file of the bundle, read, or io.EOF.
func (f *files) NextFile() (*bundle.Descriptor, error) {
	if f.option != "" {
		return nil, fmt.Errorf("the bundle loader takes no %s", f.option)
	}
	return f.next()
}

// WithFilter is refused: see files.
func (f *files) WithFilter(filter.LoaderFilter) bundle.DirectoryLoader {
	f.option = "filter"
	return f
}

// WithPathFormat is refused: see files.
func (f *files) WithPathFormat(bundle.PathFormat) bundle.DirectoryLoader {
	f.option = "path format"
	return f
}

// WithSizeLimitBytes is refused: see files.
func (f *files) WithSizeLimitBytes(int64) bundle.DirectoryLoader {
	f.option = "size limit but its Limits"
	return f
}

// WithFollowSymlinks is refused: see files.
func (f *files) WithFollowSymlinks(bool) bundle.DirectoryLoader {
	f.option = "symlink option"
	return f
}

// tarballFiles reads the regular files of a .tar.gz, named as OPA's
// tarball loader names them. Besides the budget of the files, the
// archive may be at most twice lim.TotalBytes, compressed and
// uncompressed: entries that are no file are read past too, and a gzip
// stream can be long and expand to nothing.
func tarballFiles(r io.Reader, b *budget) *files {
	archive := &LimitError{Path: b.path, Limit: 2 * b.lim.TotalBytes, Archive: true}
	var tr *tar.Reader
	return &files{next: func() (*bundle.Descriptor, error) {
		if tr == nil {
			zr, err := gzip.NewReader(&counted{r: r, left: archive.Limit, over: archive})
			if err != nil {
				return nil, fmt.Errorf("archive read failed: %w", err)
			}
			tr = tar.NewReader(&counted{r: zr, left: archive.Limit, over: archive})
		}
		for {
			hdr, err := tr.Next()
			if err != nil {
				return nil, err // io.EOF at the end
			}
			if err := b.entry(); err != nil {
				return nil, err
			}
			if hdr.Typeflag != tar.TypeReg {
				continue
			}
			buf, err := b.read(hdr.Name, hdr.Size, func(w io.Writer, n int64) (int64, error) { return io.CopyN(w, tr, n) })
			if err != nil {
				return nil, fmt.Errorf("failed to copy file %s: %w", printable.Quote(hdr.Name), err)
			}
			return bundle.NewDescriptor(filepath.Join("", hdr.Name), hdr.Name, buf), nil
		}
	}}
}

// folderFiles reads the files of a bundle folder as OPA's directory
// loader lists and names them.
func folderFiles(dir string, b *budget) *files {
	list := bundle.NewDirectoryLoader(dir)
	return &files{next: func() (*bundle.Descriptor, error) {
		d, err := list.NextFile()
		if err != nil {
			return nil, err
		}
		defer d.Close()
		if err := b.entry(); err != nil {
			return nil, err
		}
		var size int64
		if info, err := os.Lstat(d.URL()); err == nil {
			size = info.Size()
		}
		buf, err := b.read(d.Path(), size, d.Read)
		if err != nil {
			return nil, err
		}
		return bundle.NewDescriptor(d.URL(), d.Path(), buf), nil
	}}
}

// counted reads from r, and fails with over once it has read more than
// left bytes.
type counted struct {
	r    io.Reader
	left int64
	over error
}

func (c *counted) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, c.over
	}
	p = p[:min(int64(len(p)), c.left+1)]
	n, err := c.r.Read(p)
	if c.left -= int64(n); c.left < 0 {
		return n, c.over
	}
	return n, err
}
