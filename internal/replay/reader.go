package replay

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxRecordBytes is the longest line (or array element) read as an
// event: 1 MiB. OPA's own decision log events are a few KiB; a longer one is
// counted unreadable, with the limit in its message, rather than buffered.
const DefaultMaxRecordBytes = 1 << 20

// Record is one line of a console log, or one element of an uploaded array:
// the text an event would be, or why it cannot be one.
type Record struct {
	Line   int    // the line the record starts on, from 1
	Offset int64  // its first byte in the log (after decompression)
	Len    int64  // its length in bytes
	Text   []byte // its bytes, valid until the next call of Next; nil when Problem is set
	// Problem says why the record is unreadable whatever its text (too
	// long, an empty array element); "" otherwise.
	Problem string
}

// Reader splits one decision log into records, streaming: it holds one
// record at a time, never the whole log. A log is either one JSON event a
// line (OPA's console decision logger, with OPA's own log lines among
// them) or JSON arrays of events (decision log service uploads), either
// one gzip-compressed, which is recognised by its magic bytes.
type Reader struct {
	br    *bufio.Reader
	max   int
	line  int
	off   int64
	start int64 // the offset of the line's first byte
	form  form
	first bool // in an array, no element read yet
	buf   []byte
}

type form int

const (
	formUnknown form = iota
	formLines
	formInArray
	formAfterArray
	formDone
)

// NewReader reads the log r, refusing records longer than maxRecord bytes
// (DefaultMaxRecordBytes when 0).
func NewReader(r io.Reader, maxRecord int) (*Reader, error) {
	if maxRecord <= 0 {
		maxRecord = DefaultMaxRecordBytes
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	return &Reader{br: br, max: maxRecord, line: 1}, nil
}

// Next returns the next record, io.EOF after the last, or the error that
// stopped reading (a broken gzip stream, say).
func (r *Reader) Next() (Record, error) {
	for {
		switch r.form {
		case formUnknown:
			b, err := r.skipSpace()
			if err != nil {
				return Record{}, err
			}
			r.form = formLines
			if b == '[' {
				r.form = formAfterArray
			}
		case formLines:
			rec, err := r.nextLine()
			if err != nil || rec.Len > 0 {
				return rec, err
			}
		case formInArray:
			rec, ok, err := r.nextElement()
			if err != nil || ok {
				return rec, err
			}
		case formAfterArray:
			b, err := r.skipSpace()
			if err != nil {
				return Record{}, err
			}
			if b != '[' {
				return Record{}, brokenArray("text after the array that is not an array")
			}
			r.consume()
			r.form, r.first = formInArray, true
		case formDone:
			return Record{}, io.EOF
		}
	}
}

// readByte reads one byte, counting lines and offsets.
func (r *Reader) readByte() (byte, error) {
	b, err := r.br.ReadByte()
	if err != nil {
		return 0, ioErr(err)
	}
	r.off++
	if b == '\n' {
		r.line, r.start = r.line+1, r.off
	}
	return b, nil
}

// col is the column, in bytes from 1, of the next byte to read.
func (r *Reader) col() int64 { return r.off - r.start + 1 }

// consume drops the byte that skipSpace peeked.
func (r *Reader) consume() { _, _ = r.readByte() }

// skipSpace reads past JSON whitespace and peeks at the next byte.
func (r *Reader) skipSpace() (byte, error) {
	for {
		p, err := r.br.Peek(1)
		if err != nil {
			return 0, ioErr(err)
		}
		if !isSpace(p[0]) {
			return p[0], nil
		}
		r.consume()
	}
}

// ioErr passes io.EOF on as it is and names every other read error.
func ioErr(err error) error {
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	return fmt.Errorf("read: %w", err)
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// nextLine reads one line. A blank line is a record of length 0, which
// Next passes over.
func (r *Reader) nextLine() (Record, error) {
	rec := Record{Line: r.line, Offset: r.off}
	r.buf = r.buf[:0]
	var n int64
	endsLine := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		n += int64(len(chunk))
		switch {
		case rec.Problem != "":
		case len(r.buf)+len(chunk) > r.max+1: // +1: the newline
			rec.Problem = r.tooLong("line")
		default:
			r.buf = append(r.buf, chunk...)
		}
		if err == nil {
			endsLine = true
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !errors.Is(err, io.EOF) {
			return Record{}, ioErr(err)
		}
		if n == 0 {
			r.form = formDone
			return Record{}, io.EOF
		}
		break
	}
	r.off += n
	if endsLine {
		r.line, r.start = r.line+1, r.off
		n--
	}
	if rec.Problem != "" {
		rec.Len = n // the whole line, as far as its end
		return rec, nil
	}
	lead, text := trimSpace(r.buf)
	if len(text) == 0 {
		return Record{}, nil
	}
	rec.Offset += int64(lead)
	rec.Len = int64(len(text))
	rec.Text = text
	return rec, nil
}

// tooLong is the problem of a record over the limit.
func (r *Reader) tooLong(what string) string {
	return fmt.Sprintf("%s longer than %d bytes, the limit of an event", what, r.max)
}

// trimSpace returns b without the JSON whitespace around it, and how much
// was cut before it.
func trimSpace(b []byte) (int, []byte) {
	start := 0
	for start < len(b) && isSpace(b[start]) {
		start++
	}
	end := len(b)
	for end > start && isSpace(b[end-1]) {
		end--
	}
	return start, b[start:end]
}

// nextElement reads one element of an array: its bytes up to the comma or
// closing bracket at its own depth, outside strings. It reports false,
// and no record, at the bracket that closes an empty array.
func (r *Reader) nextElement() (Record, bool, error) {
	b, err := r.skipSpace()
	if err == io.EOF {
		problem := "the array is cut short after a comma"
		if r.first {
			problem = "the array is not closed"
		}
		return Record{}, false, brokenArray(problem)
	}
	if err != nil {
		return Record{}, false, err
	}
	if b == ']' && r.first {
		r.consume()
		r.form = formAfterArray
		return Record{}, false, nil
	}
	r.first = false
	rec := Record{Line: r.line, Offset: r.off}
	r.buf = r.buf[:0]
	var scan elementScan
	for {
		b, err := r.readByte()
		if err == io.EOF {
			return Record{}, false, brokenArray(fmt.Sprintf("the array is cut short: its element from line %d is not complete", rec.Line))
		}
		if err != nil {
			return Record{}, false, err
		}
		if scan.ends(b) {
			if b == ']' {
				r.form = formAfterArray
			}
			break
		}
		rec.Len++
		switch {
		case rec.Problem != "":
		case len(r.buf) == r.max:
			rec.Problem = r.tooLong("array element")
		default:
			r.buf = append(r.buf, b)
		}
	}
	if rec.Problem != "" {
		return rec, true, nil
	}
	_, text := trimSpace(r.buf)
	rec.Len = int64(len(text))
	if len(text) == 0 {
		rec.Problem = "an empty array element"
		return rec, true, nil
	}
	rec.Text = text
	return rec, true, nil
}

// elementScan follows an array element's strings and nesting, to find the
// comma or bracket that ends it.
type elementScan struct {
	depth          int
	inString, skip bool
}

// ends takes the next byte and reports whether it ends the element.
func (s *elementScan) ends(b byte) bool {
	switch {
	case s.skip:
		s.skip = false
	case s.inString:
		s.skip = b == '\\'
		s.inString = b != '"'
	case b == '"':
		s.inString = true
	case b == '{' || b == '[':
		s.depth++
	case (b == '}' || b == ']') && s.depth > 0:
		s.depth--
	case (b == ',' || b == ']') && s.depth == 0:
		return true
	}
	return false
}

// brokenArray is the error of a log whose arrays break off or are
// followed by other text. It ends the reading of the log: whatever follows
// the break could be read only as one record to its end, and the events in
// it would go uncounted (a console log cut in the middle of a line that
// holds "[", say).
func brokenArray(problem string) error {
	return fmt.Errorf("%s: %w", problem, ErrBrokenArray)
}

// ErrBrokenArray is wrapped by the error of a log whose arrays break off.
var ErrBrokenArray = errors.New("a log is one JSON event a line, or JSON arrays of events")
