package reference

import "github.com/hcp-rego/hcp-rego/compile"

// effectiveGate is the confirm gate a call meets (docs/decisions.md item 7): the
// row's own gate when it has one; otherwise a true gate when a runtime
// confirm rule fires, which byRuntime reports; otherwise none. A runtime
// rule never lowers "always".
func effectiveGate(row compile.Gate, extConfirm any) (gate compile.Gate, byRuntime bool) {
	switch {
	case row != compile.NoGate:
		return row, false
	case Fires(extConfirm):
		return compile.GateTrue, true
	}
	return compile.NoGate, false
}

// passes reports whether the call gets through gate
// (docs/decisions.md#the-chain, gate): a true
// gate yields to mode run, to confirm or apply, or to a matching allow
// rule; "always" yields only to confirm, apply or an allow rule.
func (c *call) passes(gate compile.Gate) bool {
	switch gate {
	case compile.NoGate:
		return true
	case compile.GateTrue:
		return c.mode == "run" || c.confirm || c.apply || c.allowedByRule()
	}
	return c.confirm || c.apply || c.allowedByRule()
}

// allowedByRule reports whether one of the user's allow rules matches the
// call. Rules match commands only, never triggers.
func (c *call) allowedByRule() bool {
	if c.kind != compile.Verb {
		return false
	}
	for _, item := range c.allow {
		if r, ok := readAllowRule(item); ok && r.matches(c) {
			return true
		}
	}
	return false
}
