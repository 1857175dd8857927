package document

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// Limits bound what one input file may hold, so that hostile input costs
// bounded memory and time and fails with a clear message.
const (
	MaxFileBytes   = 64 << 20 // a whole file
	MaxStringBytes = 1 << 20  // one string value or key
	MaxDepth       = 100      // nesting of arrays and objects
)

// parser walks one JSON document token by token.
type parser struct {
	file string
	data []byte
	ix   *lineIndex
	dec  *json.Decoder
	errs problem.Errors // problems that do not stop the walk (duplicate keys)
	vals *tally         // the values of the run's JSON files
	// stream, when set, names the array that the parse hands on element
	// by element rather than keep (ParseJSONStream).
	stream *stream
}

// ParseJSON parses data, the contents of file, into a tree of positioned
// nodes. It returns every duplicate key it finds, or else the first syntax
// problem, as problem.Errors.
//
// Its values are taken from budget, the budget of the run that reads
// file, and a value past its limit is refused where it starts; nil gives
// file a budget of its own, for a run that reads one JSON file only.
func ParseJSON(file string, data []byte, budget *Budget) (*Node, error) {
	return parseJSON(file, data, budget, nil)
}

// ParseJSONStream parses data as ParseJSON does, but hands each element
// of the array at the top-level member key to items as soon as it is
// read, and keeps none: the tree it returns holds that member as an
// empty array. So a file of a million grants is never a tree of a
// million grants. The elements' values count in the run's values, not in
// what it holds (Limits.Held), and one file holds at once its values
// outside the array and one element's (MaxFileValues).
//
// A file with a problem is read again by the slower walk that names it:
// items is told to start again (Items.Restart) before the elements come
// again. When the parse returns an error, what items took is not a
// file's.
func ParseJSONStream(file string, data []byte, budget *Budget, key string, items Items) (*Node, error) {
	return parseJSON(file, data, budget, &stream{key: key, items: items})
}

// Items takes the elements of the array that ParseJSONStream streams, in
// order.
type Items interface {
	// Item takes element i of the array (from 0). It may keep nothing
	// of n but its strings: the parse reads the next element into the
	// same nodes.
	Item(i int, n *Node)
	// Restart forgets every element taken: they come again, from 0.
	Restart()
}

// stream is the array that a parse streams.
type stream struct {
	key   string
	items Items
}

// at reports whether the member key of an object at depth (1 for the
// top level's members) is the streamed array's.
func (s *stream) at(depth int, key string) bool {
	return s != nil && depth == 1 && key == s.key
}

func parseJSON(file string, data []byte, budget *Budget, s *stream) (*Node, error) {
	if budget == nil {
		budget = NewBudget()
	}
	p := &parser{file: file, data: data, ix: newLineIndex(data), vals: newTally(budget), stream: s}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, p.fail(0, "empty file, want a JSON document")
	}
	if !utf8.Valid(data) {
		return nil, p.fail(firstInvalidUTF8(data), "invalid UTF-8")
	}
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		return nil, p.fail(0, "the file starts with a byte-order mark (U+FEFF), which JSON does not allow; save it without one")
	}
	defer p.vals.keep()
	root, over, ok := quickParse(data, p.vals, s)
	switch {
	case ok:
		return root, nil
	case over >= 0:
		return nil, p.overLimit(over)
	}
	p.vals.drop() // the walk reads the same values again
	if s != nil {
		s.items.Restart()
	}
	return p.walk()
}

// overLimit is the error of the value at offset past the file's limit or
// one of the run's.
func (p *parser) overLimit(offset int) error {
	return overLimit(p.file, p.ix.pos(offset), p.vals)
}

// overLimit is the error of the value at pos in file past the limit that
// vals met.
func overLimit(file string, pos problem.Pos, vals *tally) error {
	hint := ""
	if h := vals.hint; h != "" {
		hint = "; " + h
	}
	var msg string
	switch vals.why {
	case fileLimit:
		msg = fmt.Sprintf("more values than the limit of %d for one JSON file", vals.file)
	case heldLimit:
		msg = fmt.Sprintf("more values than the limit of %d held parsed for one run (a pack's files, a grant file but its grants)%s", vals.trees.limit, hint)
	default:
		msg = fmt.Sprintf("more values than the limit of %d for the JSON files of one run%s", vals.c.limit, hint)
	}
	return problem.Errors{{File: file, Pos: pos, Msg: msg}}
}

// walk parses the file with encoding/json's token decoder, which names
// whatever is wrong with it; quickParse reads a good file faster.
func (p *parser) walk() (*Node, error) {
	data := p.data
	p.dec = json.NewDecoder(bytes.NewReader(data))
	p.dec.UseNumber()
	root, err := p.value(0, true)
	if err != nil {
		return nil, err
	}
	if off := pastSpace(data, int(p.dec.InputOffset())); off < len(data) {
		return nil, p.fail(off, "unexpected data after the JSON value")
	}
	return root, p.errs.Err()
}

func (p *parser) fail(offset int, format string, args ...any) error {
	return problem.Errors{{File: p.file, Pos: p.ix.pos(offset), Msg: fmt.Sprintf(format, args...)}}
}

// next returns the offset at which the next token starts.
func (p *parser) next() int { return tokenStart(p.data, int(p.dec.InputOffset())) }

// tokenStart returns the offset at which the token after offset starts:
// past white space and the ',' or ':' that may separate it from the
// previous token.
func tokenStart(data []byte, offset int) int {
	for offset < len(data) {
		switch data[offset] {
		case ' ', '\t', '\n', '\r', ',', ':':
			offset++
		default:
			return offset
		}
	}
	return offset
}

// pastSpace returns the offset of the first byte at or after offset that
// is not JSON white space.
func pastSpace(data []byte, offset int) int {
	for offset < len(data) {
		switch data[offset] {
		case ' ', '\t', '\n', '\r':
			offset++
		default:
			return offset
		}
	}
	return offset
}

// token reads the next token and the offset at which it starts.
func (p *parser) token() (json.Token, int, error) {
	start := p.next()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, start, p.syntaxError(start, err)
	}
	return tok, start, nil
}

func (p *parser) syntaxError(start int, err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		return p.fail(p.errorOffset(start), "invalid JSON: %s", syn.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return p.fail(len(p.data), "invalid JSON: unexpected end of file")
	}
	return p.fail(start, "invalid JSON: %s", err.Error())
}

// errorOffset finds the byte at which the token starting at start goes
// wrong. The token decoder reports some offsets at the end of the previous
// token, so the token is scanned again by itself.
func (p *parser) errorOffset(start int) int {
	var v any
	var syn *json.SyntaxError
	if errors.As(json.NewDecoder(bytes.NewReader(p.data[start:])).Decode(&v), &syn) {
		return start + int(syn.Offset) - 1
	}
	return start
}

// value reads one whole value at the given nesting depth, kept in the
// tree or handed on (see ParseJSONStream).
func (p *parser) value(depth int, kept bool) (*Node, error) {
	tok, start, err := p.token()
	if err != nil {
		return nil, err
	}
	return p.node(tok, start, depth, kept)
}

// streamed reads the value of the streamed array's member: an array's
// elements are handed on one by one; any other value is kept, for the
// schema to refuse.
func (p *parser) streamed(depth int) (*Node, error) {
	tok, start, err := p.token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('[') {
		return p.node(tok, start, depth, true)
	}
	if !p.vals.one(true) {
		return nil, p.overLimit(start)
	}
	n := &Node{Kind: Array, Pos: p.ix.pos(start)}
	for i := 0; p.dec.More(); i++ {
		used := p.vals.used
		item, err := p.value(depth+1, false)
		if err != nil {
			return nil, err
		}
		p.stream.items.Item(i, item)
		p.vals.handedOn(p.vals.used - used)
	}
	_, _, err = p.token() // ']'
	return n, err
}

// node reads the value that starts with tok, at start.
func (p *parser) node(tok json.Token, start, depth int, kept bool) (*Node, error) {
	if !p.vals.one(kept) {
		return nil, p.overLimit(start)
	}
	n := &Node{Pos: p.ix.pos(start)}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= MaxDepth {
			return nil, p.fail(start, "nesting deeper than %d levels", MaxDepth)
		}
		if t == '[' {
			return n, p.array(n, depth+1, kept)
		}
		if t == '{' {
			return n, p.object(n, depth+1, kept)
		}
		return nil, p.fail(start, "invalid JSON: unexpected %q", rune(t))
	case string:
		if len(t) > MaxStringBytes {
			return nil, p.fail(start, "string of %d bytes is longer than the limit of %d", len(t), MaxStringBytes)
		}
		n.Kind, n.Text = String, t
	case json.Number:
		if problem := numberProblem(t.String()); problem != "" {
			return nil, p.fail(start, "%s", problem)
		}
		n.Kind, n.Text = Number, t.String()
	case bool:
		n.Kind, n.Bool = Bool, t
	case nil:
		n.Kind = Null
	}
	return n, nil
}

func (p *parser) array(n *Node, depth int, kept bool) error {
	n.Kind = Array
	for p.dec.More() {
		item, err := p.value(depth, kept)
		if err != nil {
			return err
		}
		n.Items = append(n.Items, item)
	}
	_, _, err := p.token() // ']'
	return err
}

func (p *parser) object(n *Node, depth int, kept bool) error {
	n.Kind = Object
	n.fields = map[string]*Node{}
	for p.dec.More() {
		tok, start, err := p.token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if len(key) > MaxStringBytes {
			return p.fail(start, "key of %d bytes is longer than the limit of %d", len(key), MaxStringBytes)
		}
		keyPos := p.ix.pos(start) // before the value: positions are asked in order
		var member *Node
		if _, dup := n.fields[key]; p.stream.at(depth, key) && !dup { // the array once: its elements come in order
			member, err = p.streamed(depth)
		} else {
			member, err = p.value(depth, kept)
		}
		if err != nil {
			return err
		}
		member.Key, member.KeyPos = key, keyPos
		if first, dup := n.fields[key]; dup {
			p.errs.Add(p.file, member.KeyPos, "duplicate key %q (first at %d:%d)", key, first.KeyPos.Line, first.KeyPos.Col)
			continue
		}
		n.fields[key] = member
		n.Items = append(n.Items, member)
	}
	if len(n.Items) <= smallObject {
		n.fields = nil // the same tree as quickParse's
	}
	_, _, err := p.token() // '}'
	return err
}

// firstInvalidUTF8 returns the offset of the first byte that is not valid
// UTF-8.
func firstInvalidUTF8(data []byte) int {
	for off := 0; off < len(data); {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size == 1 {
			return off
		}
		off += size
	}
	return len(data)
}
