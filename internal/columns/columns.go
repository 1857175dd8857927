// Package columns writes plain-text tables: lines of cells in columns two
// spaces apart, each cell padded to its column's widest by runes, the last
// cell of a line unpadded. compare and replay write their pretty tables
// with it. Cells are written as given: a caller makes them printable.
package columns

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Writer is what Write writes to: a bufio.Writer or a strings.Builder.
type Writer interface {
	io.StringWriter
	io.ByteWriter
}

// Write writes lines in columns two spaces apart. lines must hold at
// least one line, each of as many cells as the first.
func Write(w Writer, lines [][]string) {
	widths := make([]int, len(lines[0]))
	for _, line := range lines {
		for i, text := range line {
			widths[i] = max(widths[i], utf8.RuneCountInString(text))
		}
	}
	for _, line := range lines {
		for i, text := range line {
			if i > 0 {
				w.WriteString("  ")
			}
			w.WriteString(text)
			if i < len(line)-1 {
				w.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(text)))
			}
		}
		w.WriteByte('\n')
	}
}
