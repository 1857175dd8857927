package source

import (
	"sort"
	"unicode/utf8"
)

// Pos is a position in a file: Line and Col start at 1. Col counts
// characters (Unicode code points), not bytes, so a position reads the same
// in any editor; an invalid UTF-8 byte counts as one character. The zero Pos
// means "no position".
type Pos struct {
	Line int
	Col  int
}

// lineIndex maps byte offsets of one file to positions.
type lineIndex struct {
	data   []byte
	starts []int // byte offset at which each line starts
}

func newLineIndex(data []byte) *lineIndex {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{data: data, starts: starts}
}

// pos returns the position of the byte at offset; an offset past the end
// names the position just after the last byte.
func (ix *lineIndex) pos(offset int) Pos {
	offset = max(0, min(offset, len(ix.data)))
	line := sort.Search(len(ix.starts), func(i int) bool { return ix.starts[i] > offset }) - 1
	col := 1
	for rest := ix.data[ix.starts[line]:offset]; len(rest) > 0; col++ {
		_, size := utf8.DecodeRune(rest)
		rest = rest[size:]
	}
	return Pos{Line: line + 1, Col: col}
}
