package compile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// spillBuckets bounds the files a spill writes at once: shard k goes to
// bucket k mod spillBuckets, so that 4,096 shards hold 256 files open,
// not 4,096, and a bucket holds at most 16 shards.
const spillBuckets = 256

// spill holds a sharded build's grants with a tenant on disk while the
// grant files are read (BuildShards, docs/fleet.md "The build's memory"):
// each grant is written, as read, to its shard's bucket file, and read
// back one bucket at a time to build that bucket's shards. So the build
// holds one bucket's grants, not the run's.
//
// Grant files are read in parallel, and one may be read again from its
// start (grantReader.Restart): a grant is stamped with its file and the
// file's read, and only the last read of each file is read back.
type spill struct {
	dir string
	n   int // the build's shards

	mu      sync.Mutex
	buckets []*spillBucket
	gen     map[int]int    // a file's read, counted from 0 (Restart)
	count   map[int]int    // the grants spilled by that read
	shardOf map[string]int // a tenant's shard, hashed once
	err     error          // the first write that failed
}

// spillBucket is one bucket file, written through a buffer.
type spillBucket struct {
	f *os.File
	w *bufio.Writer
}

// newSpill makes a spill of a build of n shards in a new hidden folder
// in dir, which remove takes away.
func newSpill(dir, pattern string, n int) (*spill, error) {
	tmp, err := os.MkdirTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	s := &spill{dir: tmp, n: n, gen: map[int]int{}, count: map[int]int{}, shardOf: map[string]int{}}
	for b := range min(n, spillBuckets) {
		f, err := os.Create(filepath.Join(tmp, fmt.Sprint(b)))
		if err != nil {
			s.remove()
			return nil, err
		}
		s.buckets = append(s.buckets, &spillBucket{f: f, w: bufio.NewWriterSize(f, 32<<10)})
	}
	return s, nil
}

// remove closes the bucket files and removes the spill's folder.
func (s *spill) remove() {
	for _, b := range s.buckets {
		b.f.Close()
	}
	os.RemoveAll(s.dir)
}

// put writes grant g of the grant file given at index file.
func (s *spill) put(file int, g *Grant) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, seen := s.shardOf[g.Tenant]
	if !seen {
		k = Shard(g.Tenant, s.n)
		s.shardOf[g.Tenant] = k
	}
	s.count[file]++
	if s.err != nil {
		return
	}
	rec := spillRecord{shard: k, file: file, gen: s.gen[file], g: g}
	if err := rec.write(s.buckets[k%len(s.buckets)].w); err != nil {
		s.err = err
	}
}

// restart forgets what the file given at index file spilled: it is read
// again from its start.
func (s *spill) restart(file int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen[file]++
	s.count[file] = 0
}

// spilled is how many grants the last read of the file at index file
// spilled; 0 for a nil spill.
func (s *spill) spilled(file int) int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count[file]
}

// finish writes out what the buffers hold, and returns the first error
// met writing the spill.
func (s *spill) finish() error {
	for _, b := range s.buckets {
		if s.err == nil {
			s.err = b.w.Flush()
		}
	}
	if s.err != nil {
		return fmt.Errorf("spill the grants to %s: %w", s.dir, problem.Pathless(s.err))
	}
	return nil
}

// errReadAgain says that a spilled build met a problem in its sources (a
// grant that lint would refuse, a file that could not be read) or could
// not spill: BuildShards then reads the sources the way that names each
// problem.
var errReadAgain = errors.New("read the sources again without spilling")

// shards reads the spill back one bucket at a time and gives each shard,
// in order within its bucket, its grants, as m's files number them. A
// grant lint would refuse (spilledClean) stops it with errReadAgain.
func (s *spill) shards(m *Model, yield func(k int, grants []*Grant) error) error {
	for b, bucket := range s.buckets {
		byShard, err := s.readBucket(m, b, bucket.f)
		if err != nil {
			return err
		}
		for k := b; k < s.n; k += len(s.buckets) {
			if err := yield(k, byShard[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// readBucket reads bucket b's file back from its start: the grants of
// each of its shards, those of each file's last read only.
func (s *spill) readBucket(m *Model, b int, f *os.File) (map[int][]*Grant, error) {
	size, err := f.Seek(0, io.SeekEnd)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return nil, fmt.Errorf("read the spilled grants: %w", problem.Pathless(err))
	}
	r := &spillReader{r: bufio.NewReaderSize(f, 32<<10), size: uint64(size), names: map[string]string{}}
	byShard := map[int][]*Grant{}
	for {
		rec, err := r.next()
		if err == io.EOF {
			return byShard, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read the spilled grants: %w", problem.Pathless(err))
		}
		if rec.shard < 0 || rec.shard >= s.n || rec.shard%len(s.buckets) != b || rec.file < 0 || rec.file >= len(m.grantFiles) {
			return nil, fmt.Errorf("read the spilled grants: %w", errSpillCorrupt)
		}
		if rec.gen > s.gen[rec.file] {
			return nil, fmt.Errorf("read the spilled grants: %w", errSpillCorrupt)
		}
		if rec.gen != s.gen[rec.file] {
			continue // an earlier read of a file read again
		}
		g := rec.g
		g.File, g.FileIndex = m.grantFiles[rec.file], rec.file
		if !spilledClean(m, g) {
			return nil, errReadAgain
		}
		byShard[rec.shard] = append(byShard[rec.shard], g)
	}
}

// spilledClean reports whether lint finds nothing in a spilled grant: its
// capabilities fit its scope (lintScope) and what it names exists
// (lintTarget).
func spilledClean(m *Model, g *Grant) bool {
	if slices.ContainsFunc(g.Capabilities, g.misfits) {
		return false
	}
	var errs problem.Errors
	g.lintTarget(&m.contents, &errs, &hints{})
	return len(errs) == 0
}

// spillRecord is one spilled grant: its shard, its file's index and
// read, and what the shard's tables and lint read of it.
type spillRecord struct {
	shard, file, gen int
	g                *Grant
}

// write writes the record: its numbers as uvarints, its strings each
// after its length.
func (rec spillRecord) write(w *bufio.Writer) error {
	g := rec.g
	var buf []byte
	for _, v := range []int{rec.shard, rec.file, rec.gen, g.N, g.Line, len(g.Capabilities)} {
		buf = binary.AppendUvarint(buf, uint64(v))
	}
	for _, s := range append([]string{g.Subject, g.Tenant, g.PackID, g.VerbKey, g.Stimulus}, g.Capabilities...) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	_, err := w.Write(buf)
	return err
}

// spillReader reads records as write wrote them, with one copy of each
// name a bucket repeats. No count or length it reads may pass the file's
// size: the file is the build's own, but a record it did not write (a
// failing disk, another process) must end the build with an error, not a
// panic or an allocation as large as a number read.
type spillReader struct {
	r     *bufio.Reader
	size  uint64 // the file's bytes
	names map[string]string
}

// errSpillCorrupt says a spill file holds a record that write did not
// write.
var errSpillCorrupt = errors.New("the spill file is corrupt")

// next is the next record, or io.EOF after the last.
func (r *spillReader) next() (spillRecord, error) {
	var nums [6]int
	for i := range nums {
		v, err := binary.ReadUvarint(r.r)
		if err != nil {
			if i > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return spillRecord{}, err
		}
		if i == len(nums)-1 && v > r.size {
			return spillRecord{}, errSpillCorrupt
		}
		nums[i] = int(v)
	}
	strs := make([]string, 5+nums[5])
	for i := range strs {
		s, err := r.string(i != 0) // a principal's id is mostly its own
		if err != nil {
			return spillRecord{}, err
		}
		strs[i] = s
	}
	g := &Grant{N: nums[3], Line: nums[4], Subject: strs[0], Tenant: strs[1], PackID: strs[2], VerbKey: strs[3], Stimulus: strs[4]}
	if caps := strs[5:]; len(caps) > 0 {
		g.Capabilities = caps
	}
	return spillRecord{shard: nums[0], file: nums[1], gen: nums[2], g: g}, nil
}

// string reads one string, its one copy when shared.
func (r *spillReader) string(shared bool) (string, error) {
	n, err := binary.ReadUvarint(r.r)
	if err != nil {
		return "", noEOF(err)
	}
	if n > r.size {
		return "", errSpillCorrupt
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		return "", noEOF(err)
	}
	if !shared {
		return string(b), nil
	}
	if kept, ok := r.names[string(b)]; ok {
		return kept, nil
	}
	s := string(b)
	r.names[s] = s
	return s, nil
}

// noEOF is err, io.ErrUnexpectedEOF for io.EOF: a record cut short.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
