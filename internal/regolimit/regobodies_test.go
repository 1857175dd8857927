package regolimit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestCheckBodies holds the edge of a body's expressions, in a rule, a
// comprehension, an else and an every: MaxBodyExprs pass, one more is
// refused at the first expression past the limit.
func TestCheckBodies(t *testing.T) {
	lines := func(n int) string {
		return strings.Repeat("\t\tinput.a != 1\n", n)
	}
	shapes := map[string]string{
		"rule":          "p if {\n%s}\n",
		"comprehension": "p := [1 |\n%s]\n",
		"else":          "p := 1 if {\n\tfalse\n} else := 2 if {\n%s}\n",
		"every":         "p if {\n\tevery x in input {\n%s\t}\n}\n",
	}
	for name, shape := range shapes {
		for _, n := range []int{MaxBodyExprs, MaxBodyExprs + 1} {
			src := "package x\n\n" + fmt.Sprintf(shape, lines(n))
			mod, err := ast.ParseModuleWithOpts("m.rego", src, ast.ParserOptions{RegoVersion: ast.RegoV1})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got := CheckBodies("m.rego", mod)
			if n == MaxBodyExprs {
				if got != nil {
					t.Errorf("%s of %d: %v", name, n, got)
				}
				continue
			}
			// The first line of the body is the line after its opening.
			first := strings.Count(src[:strings.Index(src, "\t\tinput")], "\n") + 1
			want := fmt.Sprintf("m.rego:%d:3: Rego refused: a body of 257 expressions, more than the limit of 256", first+MaxBodyExprs)
			if got == nil || !strings.HasPrefix(got.Error(), want) {
				t.Errorf("%s of %d: %v, want %s", name, n, got, want)
			}
		}
	}
}
