package document

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// numberProblem says what is wrong with a JSON number that OPA refuses to
// evaluate (one whose binary exponent is beyond OPA's limit either way,
// such as 1e100000 or 1e-100000), or returns "" when OPA takes it. OPA's
// own check decides, so that a file hcp-rego reads is never one that OPA
// turns away later without a position.
func numberProblem(text string) string {
	if _, err := ast.NumberChecked(text); err == nil {
		return ""
	}
	return fmt.Sprintf("number %s is beyond the range of numbers OPA evaluates", problem.Clip(text))
}
