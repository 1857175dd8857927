package regolimit

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// MaxBodyExprs bounds the expressions of one body of a Rego module that
// hcp-rego reads from its inputs (--ext modules, Rego test files, a
// bundle's modules): a rule's, a function's, an else's, a comprehension's
// or an every's. OPA's compiler takes time that grows with the square of
// a body's length: one body of 16,000 assignments (250 KB, within the
// limit of terms) took 15.5 s, where 160 rules of 100 took 0.5 s. At 256,
// a body costs some 4 ms, and the bodies the limit of terms allows some
// 5 s in all. The library's longest body holds 13.
const MaxBodyExprs = 256

// CheckBodies refuses a body of mod, parsed from file, that holds more
// than MaxBodyExprs expressions, at its first expression past the limit.
func CheckBodies(file string, mod *ast.Module) *problem.Error {
	var long *problem.Error
	ast.WalkBodies(mod, func(b ast.Body) bool {
		if long == nil && len(b) > MaxBodyExprs {
			long = &problem.Error{File: file, Pos: posOf(b[MaxBodyExprs].Location),
				Msg: fmt.Sprintf("Rego refused: a body of %d expressions, more than the limit of %d (OPA compiles a body in time that grows with the square of its length)", len(b), MaxBodyExprs)}
		}
		return long != nil
	})
	return long
}

// posOf is where loc stands, or the file's start when OPA gave none.
func posOf(loc *ast.Location) problem.Pos {
	if loc == nil {
		return problem.Pos{Line: 1, Col: 1}
	}
	return problem.Pos{Line: loc.Row, Col: loc.Col}
}
