package matrix

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// WriteJSON writes the matrix as docs/matrix.md's JSON document, indented
// by two spaces, without HTML escapes; cells are keyed by subject in byte
// order, as encoding/json writes maps.
func WriteJSON(w io.Writer, mx *Matrix) error {
	doc := *mx
	if doc.Subjects == nil {
		doc.Subjects = []string{}
	}
	if doc.Rows == nil {
		doc.Rows = []*Row{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(&doc)
}

// ANSI colours of the dispositions in a terminal table.
var colours = map[Disposition]string{Allow: "\x1b[32m", Ask: "\x1b[33m", Deny: "\x1b[31m"}

const colourReset = "\x1b[0m"

// WriteTable writes the matrix as a table aligned for a terminal: its
// tenant notes, a header line, then one line a row, columns two spaces
// apart. With colour, each disposition is green, yellow or red.
func WriteTable(w io.Writer, mx *Matrix, colour bool) error {
	for _, n := range mx.TenantNotes {
		if _, err := fmt.Fprintln(w, n.Text()); err != nil {
			return err
		}
	}
	header := append([]string{"PACK", "KIND", "KEY"}, mx.Subjects...)
	lines := [][]string{header}
	for _, r := range mx.Rows {
		line := []string{r.PackID, r.Kind, r.Key}
		for _, s := range mx.Subjects {
			line = append(line, string(r.Cells[s]))
		}
		lines = append(lines, line)
	}
	for n, line := range lines {
		for i := range line {
			if n > 0 && i == 0 {
				line[i] = printable.LineStart(line[i]) // a pack id, first on its line
			} else {
				line[i] = printable.Quote(line[i])
			}
		}
	}
	widths := columnWidths(lines)
	var b strings.Builder
	for n, line := range lines {
		for i, text := range line {
			if i > 0 {
				b.WriteString("  ")
			}
			if c, ok := colours[Disposition(text)]; ok && colour && n > 0 && i >= 3 {
				text = c + text + colourReset
			}
			b.WriteString(text)
			if i < len(line)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(line[i])))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func columnWidths(lines [][]string) []int {
	widths := make([]int, len(lines[0]))
	for _, line := range lines {
		for i, text := range line {
			widths[i] = max(widths[i], utf8.RuneCountInString(text))
		}
	}
	return widths
}
