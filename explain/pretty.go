package explain

import (
	"fmt"
	"strings"

	"github.com/hcp-rego/hcp-rego/source"
)

// Pretty renders a decision for `eval --format pretty`: the code and its
// error, then the call, the row, provenance, reasons and preview a line
// each; and, when steps is not nil, the steps of --explain after a blank
// line. Every value is quoted when it holds a character that does not
// print, so that an input cannot send terminal escapes.
func Pretty(d map[string]any, steps []Step) string {
	out := prettyDecision(d)
	if steps != nil {
		out += "\n" + PrettySteps(steps)
	}
	return out
}

func prettyDecision(d map[string]any) string {
	var b strings.Builder
	code, _ := d["code"].(string)
	if e, ok := d["error"].(string); ok {
		fmt.Fprintf(&b, "%s: %s\n", code, e)
	} else {
		fmt.Fprintf(&b, "%s\n", code)
	}
	line := func(label string, v any) {
		if v != nil {
			fmt.Fprintf(&b, "  %-10s %s\n", label, source.Printable(fmt.Sprint(v)))
		}
	}
	if key, field := callKey(d); key != "" {
		line("call", fmt.Sprintf("%v %s %s", d["pack_id"], field, key))
	}
	if _, ok := d["operation"]; ok {
		line("row", fmt.Sprintf("%v, land %v, confirm %v, needs %v", d["operation"], d["land"], jsonText(d["confirm"]), d["capability"]))
	}
	src, _ := d["source"].(map[string]any)
	line("row at", src["row"])
	line("grant at", src["grant"])
	if r, _ := d["reasons"].([]any); len(r) > 0 {
		line("reasons", jsonText(r))
	}
	if p, ok := d["preview"].(map[string]any); ok {
		line("preview", p["cli"])
		line("args", jsonText(p["args"]))
	}
	line("hint", d["hint"])
	return b.String()
}

// callKey is the decision's verb_key or stimulus, and which it is.
func callKey(d map[string]any) (key, field string) {
	for _, f := range []string{"verb_key", "stimulus"} {
		if k, ok := d[f].(string); ok {
			return k, f
		}
	}
	return "", ""
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
			fmt.Fprintln(&b, strings.TrimRight(fmt.Sprintf("%-5s %-11s %s", status, name, source.Printable(line)), " "))
		}
	}
	return b.String()
}
