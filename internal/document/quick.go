package document

import (
	"bytes"
	"errors"
	"io"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// quickParser builds the same tree as parser with jsontext's token reader,
// which reads a token without allocating where encoding/json's allocates
// several: about four times faster on a large grant file. It reports no
// problem itself. Whatever it does not accept (a syntax error, a duplicate
// key, nesting or a string over the limits) makes it give up, and
// ParseJSON then walks the file with encoding/json, whose messages name the
// problem.
type quickParser struct {
	src    text
	dec    *jsontext.Decoder
	vals   *tally  // the values of the run's JSON files
	over   int     // where the value past a limit of values starts, or -1
	stream *stream // the array handed on element by element, if any
	// scratch holds the nodes of the streamed element being read: each
	// element is read into the same nodes, so that a million grants cost
	// the nodes of one (Items.Item keeps none).
	scratch scratch
}

// quickParse returns the tree of data, its values counted in vals, or
// false when the file has any problem at all. When that problem is a
// value past the file's or the run's limit of values, over is where it
// starts: the file has no other problem before it.
func quickParse(data []byte, vals *tally, s *stream) (root *Node, over int, ok bool) {
	return quickRead(whole{data, newLineIndex(data)}, bytes.NewReader(data), vals, s)
}

// quickRead is quickParse of what r gives, src its text.
func quickRead(src text, r io.Reader, vals *tally, s *stream) (root *Node, over int, ok bool) {
	q := &quickParser{src: src, dec: jsontext.NewDecoder(r), vals: vals, over: -1, stream: s}
	root, ok = q.value(0, true)
	if !ok {
		return nil, q.over, false
	}
	if !q.atEnd() {
		return nil, -1, false // anything but white space after the value
	}
	return root, -1, true
}

// atEnd reports whether nothing but white space follows the value read.
func (q *quickParser) atEnd() bool {
	if q.dec.PeekKind() != 0 {
		return false // another value
	}
	_, err := q.dec.ReadToken()
	return errors.Is(err, io.EOF)
}

// text is what a quickParser tells positions from.
type text interface {
	// tokenStart returns the offset at which the token after offset
	// starts, as tokenStart does.
	tokenStart(offset int) int
	// pos returns the position of the byte at offset. Offsets are asked
	// in increasing order.
	pos(offset int) problem.Pos
}

// whole is the text of a file read whole.
type whole struct {
	data []byte
	ix   *lineIndex
}

func (w whole) tokenStart(offset int) int  { return tokenStart(w.data, offset) }
func (w whole) pos(offset int) problem.Pos { return w.ix.pos(offset) }

// next returns the offset at which the next token starts. Peeking at it
// first makes the decoder read it, so that a stream has given its first
// byte.
func (q *quickParser) next() int {
	q.dec.PeekKind()
	return q.src.tokenStart(int(q.dec.InputOffset()))
}

// value reads one whole value, kept in the tree or handed on.
func (q *quickParser) value(depth int, kept bool) (*Node, bool) {
	start := q.next()
	tok, err := q.dec.ReadToken()
	if err != nil {
		return nil, false
	}
	return q.node(tok, start, depth, kept)
}

// streamed reads the value of the streamed array's member: an array's
// elements are handed on one by one; any other value is kept, for the
// schema to refuse.
func (q *quickParser) streamed(depth int) (*Node, bool) {
	start := q.next()
	tok, err := q.dec.ReadToken()
	if err != nil {
		return nil, false
	}
	if tok.Kind() != '[' {
		return q.node(tok, start, depth, true)
	}
	if !q.vals.one(true) {
		q.over = start
		return nil, false
	}
	n := &Node{Kind: Array, Pos: q.src.pos(start)}
	for i := 0; q.dec.PeekKind() != ']'; i++ {
		used := q.vals.used
		item, ok := q.value(depth+1, false)
		if !ok {
			return nil, false
		}
		q.stream.items.Item(i, item)
		q.vals.handedOn(q.vals.used - used)
		q.scratch.reset()
	}
	_, err = q.dec.ReadToken()
	return n, err == nil
}

// node reads the value that starts with tok, at start.
func (q *quickParser) node(tok jsontext.Token, start, depth int, kept bool) (*Node, bool) {
	if !q.vals.one(kept) {
		q.over = start
		return nil, false
	}
	n := &Node{}
	if !kept {
		n = q.scratch.node()
	}
	n.Pos = q.src.pos(start)
	switch tok.Kind() {
	case '{':
		return n, depth < MaxDepth && q.object(n, depth+1, kept)
	case '[':
		return n, depth < MaxDepth && q.array(n, depth+1, kept)
	case '"':
		n.Kind, n.Text = String, tok.String()
		return n, len(n.Text) <= MaxStringBytes
	case '0':
		n.Kind, n.Text = Number, tok.String()
		return n, numberProblem(n.Text) == ""
	case 't', 'f':
		n.Kind, n.Bool = Bool, tok.Bool()
	case 'n':
		n.Kind = Null
	default:
		return nil, false
	}
	return n, true
}

func (q *quickParser) array(n *Node, depth int, kept bool) bool {
	n.Kind = Array
	for q.dec.PeekKind() != ']' {
		item, ok := q.value(depth, kept)
		if !ok {
			return false
		}
		n.Items = append(n.Items, item)
	}
	_, err := q.dec.ReadToken()
	return err == nil
}

// object reads the members of an object. jsontext refuses a duplicate key,
// so every key is new here. Only an object of more than smallObject
// members is indexed by key.
func (q *quickParser) object(n *Node, depth int, kept bool) bool {
	n.Kind = Object
	for q.dec.PeekKind() != '}' {
		start := q.next()
		tok, err := q.dec.ReadToken()
		if err != nil || tok.Kind() != '"' {
			return false
		}
		key := tok.String()
		keyPos := q.src.pos(start)
		var member *Node
		var ok bool
		if q.stream.at(depth, key) {
			member, ok = q.streamed(depth)
		} else {
			member, ok = q.value(depth, kept)
		}
		if !ok || len(key) > MaxStringBytes {
			return false
		}
		member.Key, member.KeyPos = key, keyPos
		n.Items = append(n.Items, member)
	}
	if len(n.Items) > smallObject {
		n.fields = make(map[string]*Node, len(n.Items))
		for _, m := range n.Items {
			n.fields[m.Key] = m
		}
	}
	_, err := q.dec.ReadToken()
	return err == nil
}

// scratch is nodes used again from one streamed element to the next. A
// node keeps its Items' array, which the next element's fills again.
type scratch struct {
	chunks [][]Node
	used   int // nodes handed out since the last reset
}

// scratchChunk is how many nodes scratch makes at a time; a grant takes
// seven.
const scratchChunk = 32

// node returns a node, empty but for the array of its Items.
func (s *scratch) node() *Node {
	c, i := s.used/scratchChunk, s.used%scratchChunk
	if c == len(s.chunks) {
		s.chunks = append(s.chunks, make([]Node, scratchChunk))
	}
	s.used++
	n := &s.chunks[c][i]
	*n = Node{Items: n.Items[:0]}
	return n
}

// reset hands every node out again.
func (s *scratch) reset() { s.used = 0 }
