package matrix

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/markdown"
)

// WriteMarkdown writes the matrix as a GitHub-flavoured Markdown table for
// a pull request comment: a line naming the mode, its tenant notes, then
// one table row a command or trigger. Packs, keys and subjects are code
// spans.
func WriteMarkdown(w io.Writer, mx *Matrix) error {
	var b strings.Builder
	fmt.Fprintf(&b, "**hcp-rego matrix**, mode `%s`\n\n", mx.Mode)
	for _, n := range mx.TenantNotes {
		fmt.Fprintf(&b, "> %s\n\n", n.Markdown())
	}
	header := []string{"pack", "kind", "key"}
	for _, s := range mx.Subjects {
		header = append(header, markdown.Code(s))
	}
	writeTableRow(&b, header)
	writeTableRow(&b, slices.Repeat([]string{"---"}, len(header)))
	for _, r := range mx.Rows {
		line := []string{markdown.Code(r.PackID), r.Kind, markdown.Code(r.Key)}
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
			writeTableRow(&b, []string{markdown.Code(c.Subject), markdown.Code(c.Row.PackID), c.Row.Kind, markdown.Code(c.Row.Key), change})
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
		out[i] = markdown.Code(id.PackID) + " " + id.Kind + " " + markdown.Code(id.Key)
	}
	return out
}

func codes(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = markdown.Code(s)
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
