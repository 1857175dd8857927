package testrun

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// WritePretty writes one line a test, "PASS file:line: name", with the
// fields that differ (or the failing expression) indented under a failure;
// then the coverage report when there is one. The totals line is the
// caller's to write.
func (r *Report) WritePretty(w io.Writer) error { return r.writePretty(w, true) }

// WriteFailures writes what WritePretty does for the failing tests alone,
// and the coverage report when there is one: what a watch prints on each
// run.
func (r *Report) WriteFailures(w io.Writer) error { return r.writePretty(w, false) }

func (r *Report) writePretty(w io.Writer, passes bool) error {
	var b strings.Builder
	for _, res := range r.Results {
		if res.Status != Fail && !passes {
			continue
		}
		fmt.Fprintf(&b, "%s %s: %s", strings.ToUpper(string(res.Status)), res.Location(), printable.Quote(res.Name))
		if r.Times {
			fmt.Fprintf(&b, " (%s)", res.Duration.Round(time.Microsecond))
		}
		b.WriteString("\n")
		if res.Status != Fail {
			continue
		}
		for _, line := range res.Details() {
			b.WriteString(indent(line, "    ") + "\n")
		}
	}
	if r.Coverage != nil {
		b.WriteString("\n")
		r.Coverage.writePretty(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Text is the coverage report as the pretty format prints it: the
// summary, what no case reached, and the outcomes by row.
func (c *Coverage) Text() string {
	var b strings.Builder
	c.writePretty(&b)
	return b.String()
}

// writePretty writes the coverage summary, what was never reached, and
// the outcomes each row saw.
func (c *Coverage) writePretty(b *strings.Builder) {
	b.WriteString(c.Summary() + "\n")
	var rows, gates, grants []string
	for _, rc := range c.Rows {
		if !rc.Reached() {
			rows = append(rows, fmt.Sprintf("%s: %s", where(rc.Row.File, rc.Row.Line), describeRow(rc.Row)))
		}
		if rc.Gated() && !rc.GateReached() {
			gates = append(gates, fmt.Sprintf("%s: %s (%s)", where(rc.Row.File, rc.Row.Line), describeRow(rc.Row), describeGate(rc.Row)))
		}
	}
	for _, gc := range c.Grants {
		if !gc.Used {
			grants = append(grants, fmt.Sprintf("%s: %s", where(gc.Grant.File, gc.Grant.Line), describeGrant(gc.Grant)))
		}
	}
	writeList(b, "rows never reached", rows)
	writeList(b, "gates never reached (no case ended confirm_required)", gates)
	writeList(b, "grants that gave no capability", grants)
	b.WriteString("outcomes by row:\n")
	for _, rc := range c.Rows {
		outcomes := strings.Join(rc.Outcomes, ", ")
		if outcomes == "" {
			outcomes = "none"
		}
		fmt.Fprintf(b, "  %s: %s: %s\n", where(rc.Row.File, rc.Row.Line), describeRow(rc.Row), outcomes)
	}
}

func writeList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString(title + ":\n")
	for _, item := range items {
		b.WriteString("  " + item + "\n")
	}
}

// indent prefixes every line of s.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
