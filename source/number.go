package source

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
)

// numberProblem says what is wrong with a JSON number that OPA refuses to
// evaluate (one whose binary exponent is beyond OPA's limit, such as
// 1e100000), or returns "" when OPA takes it. OPA's own check decides, so
// that a file hcp-rego reads is never one that OPA turns away later
// without a position.
func numberProblem(text string) string {
	if _, err := ast.NumberChecked(text); err == nil {
		return ""
	}
	return fmt.Sprintf("number %s is too large for OPA to evaluate", clipped(text))
}

// clipped shortens a long token for a message: its first and last 16
// bytes around how many were left out.
func clipped(text string) string {
	const keep = 16
	if len(text) <= 3*keep {
		return text
	}
	return fmt.Sprintf("%s...(%d bytes)...%s", text[:keep], len(text)-2*keep, text[len(text)-keep:])
}
