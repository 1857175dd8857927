package matrix

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/source"
)

// WriteMarkdown writes the matrix as a GitHub-flavoured Markdown table for
// a pull request comment: a line naming the mode, then one table row a
// command or trigger. Packs, keys and subjects are code spans.
func WriteMarkdown(w io.Writer, mx *Matrix) error {
	var b strings.Builder
	fmt.Fprintf(&b, "**hcp-rego matrix**, mode `%s`\n\n", mx.Mode)
	header := []string{"pack", "kind", "key"}
	for _, s := range mx.Subjects {
		header = append(header, mdCode(s))
	}
	writeTableRow(&b, header)
	writeTableRow(&b, slices.Repeat([]string{"---"}, len(header)))
	for _, r := range mx.Rows {
		line := []string{mdCode(r.PackID), r.Kind, mdCode(r.Key)}
		for _, s := range mx.Subjects {
			line = append(line, string(r.Cells[s]))
		}
		writeTableRow(&b, line)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the delta for a pull request comment: a table of the
// changed cells (subject, pack, kind, key, old → new, "—" for a row that a
// version lacks), then the rows and subjects that appeared or went away.
// With no changed cell it says so in one line.
func (d *Delta) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	if len(d.Changes) == 0 {
		fmt.Fprintf(&b, "**hcp-rego matrix diff**, mode `%s`: no changes; every subject gets the same on every command and trigger.\n", d.Mode)
	} else {
		fmt.Fprintf(&b, "**hcp-rego matrix diff**, mode `%s`: %d %s changed\n\n", d.Mode, len(d.Changes), plural(len(d.Changes), "cell", "cells"))
		writeTableRow(&b, []string{"subject", "pack", "kind", "key", "change"})
		writeTableRow(&b, slices.Repeat([]string{"---"}, 5))
		for _, c := range d.Changes {
			change := fmt.Sprintf("%s → %s", shown(c.Old), shown(c.New))
			writeTableRow(&b, []string{mdCode(c.Subject), mdCode(c.Row.PackID), c.Row.Kind, mdCode(c.Row.Key), change})
		}
	}
	d.writeMembership(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMembership lists the rows and subjects that one version lacks.
func (d *Delta) writeMembership(b *strings.Builder) {
	lists := []struct {
		label string
		items []string
	}{
		{"Rows added", rowNames(d.AddedRows)},
		{"Rows removed", rowNames(d.RemovedRows)},
		{"Subjects added", codes(d.AddedSubjects)},
		{"Subjects removed", codes(d.RemovedSubjects)},
	}
	first := true
	for _, l := range lists {
		if len(l.items) == 0 {
			continue
		}
		if first {
			b.WriteByte('\n')
			first = false
		}
		fmt.Fprintf(b, "%s: %s.\n", l.label, strings.Join(l.items, ", "))
	}
}

func shown(d Disposition) string {
	if d == Absent {
		return "—"
	}
	return string(d)
}

func rowNames(ids []RowID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = mdCode(id.PackID) + " " + id.Kind + " " + mdCode(id.Key)
	}
	return out
}

func codes(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = mdCode(s)
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func writeTableRow(b *strings.Builder, cells []string) {
	b.WriteString("| ")
	b.WriteString(strings.Join(cells, " | "))
	b.WriteString(" |\n")
}

// mdCode writes s as a code span that a table cell can hold: a rune that
// is not printable makes it Go-quoted, "|" is escaped (GFM splits cells on
// it even in code), and the fence is one backtick longer than the longest
// run of backticks inside, padded when s starts or ends with one.
func mdCode(s string) string {
	s = strings.ReplaceAll(source.Printable(s), "|", `\|`)
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
