package document

import (
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// lineIndex maps byte offsets of one file to positions. The parser asks for
// offsets in increasing order, so it walks forward from the last answer:
// the whole file costs one pass, even when it is all on one line.
type lineIndex struct {
	// data is the file from offset base on: all of it, or, for a file
	// read as a stream (window), the part from the last answer on.
	data []byte
	base int
	off  int         // the offset of the last answer
	at   problem.Pos // the last answer
}

func newLineIndex(data []byte) *lineIndex {
	return &lineIndex{data: data, at: problem.Pos{Line: 1, Col: 1}}
}

// before reports whether the byte after the current one is b.
func (ix *lineIndex) before(b byte) bool {
	next := ix.off + 1 - ix.base
	return next < len(ix.data) && ix.data[next] == b
}

// pos returns the position of the byte at offset; an offset past the end
// names the position just after the last byte. A line ends at "\n", at
// "\r\n", and at a "\r" alone (old Mac files), as editors count them.
// An offset before the last answer starts again from the first byte,
// which only an index of the whole file holds.
func (ix *lineIndex) pos(offset int) problem.Pos {
	offset = max(0, min(offset, ix.base+len(ix.data)))
	if offset < ix.off && ix.base == 0 {
		ix.off, ix.at = 0, problem.Pos{Line: 1, Col: 1}
	}
	for ix.off < offset {
		r, size := utf8.DecodeRune(ix.data[ix.off-ix.base:])
		if r == '\n' || r == '\r' && !ix.before('\n') {
			ix.at = problem.Pos{Line: ix.at.Line + 1, Col: 1}
		} else {
			ix.at.Col++
		}
		ix.off += size
	}
	return ix.at
}

// splitLines splits data into its lines, ending each at "\n", "\r\n" or a
// "\r" alone as lineIndex counts them; n line ends make n+1 lines.
func splitLines(data []byte) [][]byte {
	var lines [][]byte
	start := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '\n':
			lines, start = append(lines, data[start:i]), i+1
		case '\r':
			lines = append(lines, data[start:i])
			if i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	return append(lines, data[start:])
}

// PosAt returns the position of the byte at offset in data, counted as
// the JSON parser counts positions.
func PosAt(data []byte, offset int) problem.Pos { return newLineIndex(data).pos(offset) }
