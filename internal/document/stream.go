package document

import (
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// ReadJSONStream reads the JSON file at path as ParseJSONStream parses a
// file's bytes, but from the file as it comes (a stream): it holds the
// token it reads and the element it hands on, never the file. It returns
// the tree without the streamed array's elements, and the file's sha256.
// The file's bytes count in the run's (Limits.Bytes) as ReadSource
// counts them: one past the run's limit is refused where it stands.
//
// A file that the stream cannot read to its end (a syntax error, a
// duplicate key, a limit of values, a token longer than any a good file
// holds) is read again whole, and parsed as ParseJSONStream parses it,
// so that its problem is named alike; items is told to start again
// first.
func ReadJSONStream(path string, budget *Budget, key string, items Items) (*Node, [sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, size, err := open(path)
	if err != nil {
		return nil, sum, err
	}
	defer f.Close()
	if size > budget.bytes.leftNow() {
		// The run's bytes will refuse the file: where, ReadSource tells
		// without parsing what comes before (a stream would).
		return readWhole(path, f, size, 0, budget, key, items)
	}
	w := newWindow(path, f, budget)
	vals := newTally(budget)
	root, over, ok := quickRead(w, w, vals, &stream{key: key, items: items})
	if ok {
		vals.keep()
		w.sum.Sum(sum[:0])
		return root, sum, nil
	}
	if over >= 0 && w.err == nil {
		// A value past a limit is where ParseJSONStream names it too,
		// unless the rest of the file has a problem that it names
		// first: too many bytes, or bytes that are not UTF-8.
		at := w.pos(over)
		if w.restIsUTF8() && w.err == nil {
			vals.keep()
			return nil, sum, overLimit(path, at, vals)
		}
	}
	if refused := (*problem.Error)(nil); errors.As(w.err, &refused) {
		// ReadSource refuses a file past the run's bytes before it
		// parses any of it, whatever it holds: so does the stream, and
		// the file takes no values.
		vals.drop()
		vals.keep()
		items.Restart()
		return nil, sum, refused
	}
	vals.drop()
	items.Restart()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, sum, &problem.Error{File: path, Msg: "read: " + problem.Pathless(err).Error()}
	}
	return readWhole(path, f, w.read, w.read, budget, key, items)
}

// readWhole reads the file at path, f, from its start, of about size
// bytes, of which the run has counted counted, and parses it whole as
// ParseJSONStream does.
func readWhole(path string, f io.Reader, size, counted int64, budget *Budget, key string, items Items) (*Node, [sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	data, err := readCounted(path, f, size, budget, 0, counted)
	if err != nil {
		return nil, sum, err
	}
	root, err := ParseJSONStream(path, data, budget, key, items)
	if err != nil {
		return root, sum, err
	}
	return root, sha256.Sum256(data), nil
}

// maxWindow is the most of a stream that a window holds: a token longer
// than that (a string is at most MaxStringBytes, some six times that
// written with escapes) is no good file's, and sends the file to be read
// whole, which names it.
const maxWindow = 8 * MaxStringBytes

// errWindow stops a stream at a token longer than maxWindow.
var errWindow = errors.New("a token longer than any a stream reads")

// window is a file read as a stream: the part of it from the last
// position asked on, which holds what the decoder has been given of the
// tokens still to be placed. It counts the file's bytes in the run's
// budget and sums them as they pass.
type window struct {
	file   string
	r      io.Reader
	budget *Budget
	sum    hash.Hash
	ix     lineIndex // its data is the window
	read   int64     // the bytes read and counted
	// err is why the stream stopped: a *problem.Error at the byte past
	// the run's limit, or errWindow.
	err error
}

func newWindow(file string, r io.Reader, budget *Budget) *window {
	return &window{file: file, r: r, budget: budget, sum: sha256.New(), ix: lineIndex{at: problem.Pos{Line: 1, Col: 1}}}
}

// Read reads the file on, counting what it reads, into the window.
func (w *window) Read(p []byte) (int, error) {
	if len(w.ix.data) > maxWindow && w.err == nil {
		w.err = errWindow
	}
	n, err := w.take(p)
	w.ix.data = append(w.ix.data, p[:n]...)
	return n, err
}

// take reads the file on into p, counting and summing what it reads; at
// the byte past the run's limit it stops, with the refusal that names
// it.
func (w *window) take(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.r.Read(p)
	if got := int(w.budget.bytes.take(int64(n))); got < n {
		// The position of the byte past the limit, told from the bytes
		// up to it, as ReadSource tells it.
		ix := w.ix
		ix.data = append(slices.Clip(ix.data), p[:got+1]...)
		w.err = &problem.Error{File: w.file, Pos: ix.pos(int(w.read) + got), Msg: w.budget.overBytes()}
		n = got
	}
	w.sum.Write(p[:n])
	w.read += int64(n)
	if w.err != nil {
		return n, w.err
	}
	return n, err
}

// restIsUTF8 reads the file on to its end, counting it (a refusal is
// w.err then), and reports whether the window and the rest of the file
// are UTF-8. The decoder has checked the tokens it read.
func (w *window) restIsUTF8() bool {
	pending, valid := slices.Clone(w.ix.data), true
	chunk := make([]byte, readChunk)
	for {
		// A character may go on into the next read.
		whole := len(pending) - partialRune(pending)
		valid = valid && utf8.Valid(pending[:whole])
		pending = append(pending[:0], pending[whole:]...)
		n, err := w.take(chunk)
		pending = append(pending, chunk[:n]...)
		if err != nil {
			return valid && utf8.Valid(pending)
		}
	}
}

// partialRune is how many bytes at the end of b start a character that
// b does not hold whole.
func partialRune(b []byte) int {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(b); i++ {
		switch c := b[len(b)-i]; {
		case c >= 0xC0: // the first byte of a character of two or more
			if utf8.FullRune(b[len(b)-i:]) {
				return 0
			}
			return i
		case c < 0x80:
			return 0
		}
	}
	return 0
}

func (w *window) tokenStart(offset int) int {
	data, base := w.ix.data, w.ix.base
	for offset < base+len(data) {
		switch data[offset-base] {
		case ' ', '\t', '\n', '\r', ',', ':':
			offset++
		default:
			return offset
		}
	}
	return offset
}

// pos returns the position of the byte at offset, and lets go of the
// window before it once that is the larger part.
func (w *window) pos(offset int) problem.Pos {
	at := w.ix.pos(offset)
	if done := w.ix.off - w.ix.base; done > 4096 && 2*done > len(w.ix.data) {
		w.ix.data = w.ix.data[:copy(w.ix.data, w.ix.data[done:])]
		w.ix.base = w.ix.off
	}
	return at
}
