package problem

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestOPAErrorsOfAWholeFile: OPA's error for a module with nothing in it
// is one error with no line; it is named at the file's start, once, as
// file:line:col (it was "f.rego: f.rego:0: rego_parse_error: ...").
func TestOPAErrorsOfAWholeFile(t *testing.T) {
	for _, text := range []string{"", "# only a comment\n"} {
		_, err := ast.ParseModuleWithOpts("x_test.rego", text, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err == nil {
			t.Fatalf("%q parsed", text)
		}
		if got, want := OPAErrors("x_test.rego", err).Error(), "x_test.rego:1:1: empty module"; got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}
