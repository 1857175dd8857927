package explain

import (
	"fmt"

	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// describeGate says which gate the call met and what passed it, or why
// nothing did: mode, confirm and apply, and each exact allow rule. A row
// without a gate may have one from the runtime's confirm rule: its
// reasons are the refused decision's, or, when the call passed the gate,
// runtimeConfirm.
func describeGate(failed bool, c call, d hcprego.Decision, runtimeConfirm []any) []string {
	gate := d.Confirm
	reasons := d.Reasons
	if !failed {
		reasons = runtimeConfirm
	}
	switch {
	case gate == false && len(reasons) == 0:
		return []string{"no gate: the row has confirm false"}
	case gate == false:
		return append([]string{fmt.Sprintf("a runtime rule puts a confirm gate on the call: %v", reasons)}, gateFacts(failed, true, c)...)
	}
	return append([]string{fmt.Sprintf("the row has confirm %v", gate)}, gateFacts(failed, gate, c)...)
}

func gateFacts(failed bool, gate any, c call) []string {
	access, _ := c.input["access"].(map[string]any)
	mode, ok := str(access, "mode")
	if !ok {
		mode = "ask"
	}
	var out []string
	switch {
	case gate == true && mode == "run":
		out = append(out, "mode run passes confirm: true")
	case gate == "always" && mode == "run":
		out = append(out, `mode run does not pass confirm: "always"`)
	default:
		out = append(out, fmt.Sprintf("mode %s does not pass it", mode))
	}
	for _, flag := range []string{"confirm", "apply"} {
		if c.input[flag] == true {
			out = append(out, fmt.Sprintf("%s: true passes it", flag))
		}
	}
	rules, _ := access["allow"].([]any)
	if len(rules) == 0 {
		out = append(out, "no exact allow rules")
	}
	for i, rule := range rules {
		if why := ruleMismatch(rule, c); why != "" {
			out = append(out, fmt.Sprintf("allow rule %d does not match: %s", i+1, why))
		} else {
			out = append(out, fmt.Sprintf("allow rule %d matches", i+1))
		}
	}
	if failed {
		out = append(out, "nothing passes the gate")
	}
	return out
}
