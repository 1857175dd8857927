package testrun

import (
	"fmt"
	"io"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// WriteGitHub writes GitHub Actions workflow commands: an ::error
// annotation at each failing test's file and line, whose message lists
// the fields that differ, and, with coverage, a ::warning at each row and
// gate that no case reached. Passing tests write nothing.
func (r *Report) WriteGitHub(w io.Writer) error {
	var b strings.Builder
	for _, res := range r.Results {
		if res.Status != Fail {
			continue
		}
		annotate(&b, "error", res.File, res.Pos, "FAIL "+printable.Quote(res.Name), strings.Join(res.Details(), "\n"))
	}
	if c := r.Coverage; c != nil {
		for _, rc := range c.Rows {
			pos := problem.Pos{Line: rc.Row.Line}
			if !rc.Reached() {
				annotate(&b, "warning", rc.Row.File, pos, "row never reached", describeRow(rc.Row)+": no case reached this row")
			}
			if rc.Gated() && !rc.GateReached() {
				annotate(&b, "warning", rc.Row.File, pos, "gate never reached", describeRow(rc.Row)+" ("+describeGate(rc.Row)+"): no case ended confirm_required")
			}
		}
		b.WriteString(c.Summary() + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// annotate writes one workflow command, escaping its properties and
// message as the runner expects. The file's name is Printable first: a
// name holding an escape would reach the log raw, and the runner reads
// back only the escapes it knows (a line break's among them).
func annotate(b *strings.Builder, level, file string, pos problem.Pos, title, msg string) {
	props := "file=" + escapeProperty(printable.Quote(file)) + fmt.Sprintf(",line=%d", pos.Line)
	if pos.Col > 0 {
		props += fmt.Sprintf(",col=%d", pos.Col)
	}
	props += ",title=" + escapeProperty(title)
	fmt.Fprintf(b, "::%s %s::%s\n", level, props, escapeData(msg))
}

var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }
