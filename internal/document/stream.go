package document

import (
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"slices"

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
	f, _, err := open(path)
	if err != nil {
		return nil, [sha256.Size]byte{}, err
	}
	defer f.Close()
	w := newWindow(path, f, budget)
	vals := newTally(budget)
	root, _, ok := quickRead(w, w, vals, &stream{key: key, items: items})
	var sum [sha256.Size]byte
	if refused := (*problem.Error)(nil); !ok && errors.As(w.err, &refused) {
		// Every byte before the one past the limit reads well: a
		// problem there would have stopped the stream first. A file
		// refused for its bytes takes no values, as ReadSource refuses
		// it before they are parsed.
		vals.drop()
		vals.keep()
		items.Restart()
		return nil, sum, refused
	}
	if ok {
		vals.keep()
		w.sum.Sum(sum[:0])
		return root, sum, nil
	}
	vals.drop()
	items.Restart()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, sum, &problem.Error{File: path, Msg: "read: " + problem.Pathless(err).Error()}
	}
	data, err := readCounted(path, f, w.read, budget, 0, w.read)
	if err != nil {
		return nil, sum, err
	}
	if root, err = ParseJSONStream(path, data, budget, key, items); err != nil {
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

// Read reads the file on, counting what it reads.
func (w *window) Read(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if len(w.ix.data) > maxWindow {
		w.err = errWindow
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
	w.ix.data = append(w.ix.data, p[:n]...)
	w.read += int64(n)
	if w.err != nil {
		return n, w.err
	}
	return n, err
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
