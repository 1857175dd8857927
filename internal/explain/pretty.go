package explain

import (
	"fmt"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/printable"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// Pretty renders a decision for `eval --format pretty`: the code and its
// error, then the call, the row, provenance, reasons and preview a line
// each; and, when steps is not nil, the steps of --explain after a blank
// line. Every value is quoted when it holds a character that does not
// print, so that an input cannot send terminal escapes.
func Pretty(d hcprego.Decision, steps []Step) string {
	out := prettyDecision(d)
	if steps != nil {
		out += "\n" + PrettySteps(steps)
	}
	return out
}

func prettyDecision(d hcprego.Decision) string {
	var b strings.Builder
	// A bundle read with --bundle is an input: its library may return
	// any code and error.
	code := printable.LineStart(d.Code)
	if d.Error != "" {
		fmt.Fprintf(&b, "%s: %s\n", code, printable.Quote(d.Error))
	} else {
		fmt.Fprintf(&b, "%s\n", code)
	}
	line := func(label, v string) {
		if v != "" {
			fmt.Fprintf(&b, "  %-10s %s\n", label, printable.Quote(v))
		}
	}
	if d.Key != "" {
		line("call", fmt.Sprintf("%s %s %s", d.PackID, d.Field, d.Key))
	}
	if d.Operation != "" {
		line("row", fmt.Sprintf("%s, land %s, confirm %s, needs %s", d.Operation, d.Land, jsonText(d.Confirm), d.Capability))
	}
	line("row at", d.SourceRow)
	line("grant at", d.SourceGrant)
	// An invalid_input's reasons are the input's problems, which eval
	// prints at their file:line:col instead (PrettyReason, the input step).
	if len(d.Reasons) > 0 && d.Code != "invalid_input" {
		line("reasons", jsonText(d.Reasons))
	}
	if d.Preview != nil {
		line("preview", d.CLI)
		line("args", jsonText(d.Preview["args"]))
	}
	line("hint", d.Hint)
	return b.String()
}

// PrettySteps renders the steps of --explain alone, a line each detail:
// the status and step name, then what the step saw.
func PrettySteps(steps []Step) string {
	var b strings.Builder
	for _, st := range steps {
		detail := st.Detail
		if len(detail) == 0 {
			detail = []string{""}
		}
		for i, line := range detail {
			status, name := string(st.Status), st.Name
			if i > 0 {
				status, name = "", ""
			}
			fmt.Fprintln(&b, strings.TrimRight(fmt.Sprintf("%-5s %-11s %s", status, name, printable.Quote(line)), " "))
		}
	}
	return b.String()
}

// PrettyReason is what `eval --format pretty` adds to an invalid_input
// decision when --explain is not given: the first of the input's
// problems, at its file:line:col, and how many more --explain lists.
func PrettyReason(problems []string) string {
	if len(problems) == 0 {
		return ""
	}
	more := "--explain walks every step"
	if n := len(problems) - 1; n > 0 {
		more = fmt.Sprintf("--explain lists the other %d and walks every step", n)
	}
	return fmt.Sprintf("  %-10s %s\n  %-10s %s\n", "reason", printable.Quote(problems[0]), "", more)
}
