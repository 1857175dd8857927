package rego_test

import (
	"context"
	"fmt"
	"maps"
	"path"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	oparego "github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// longReads counts, by library file and function, the calls that are
// given a string or number of more than 64 characters (the longest number
// a limit judges, docs/decisions.md item 8). A count of evaluation steps
// cannot see the work inside one call (regex.match on a megabyte is one
// step); which functions a long value reaches, and how often, bounds that
// work, and is the same on every run.
type longReads map[longRead]int

// longRead is a function called, in a file of the library.
type longRead struct{ file, fn string }

func (longReads) Enabled() bool               { return true }
func (longReads) Config() topdown.TraceConfig { return topdown.TraceConfig{} }

func (c longReads) TraceEvent(e topdown.Event) {
	expr, ok := e.Node.(*ast.Expr)
	if e.Op != topdown.EvalOp || !ok || !expr.IsCall() {
		return
	}
	for _, op := range expr.Operands() {
		switch v := e.Plug(op).Value.(type) {
		case ast.String:
			ok = len(v) > 64
		case ast.Number:
			ok = len(v) > 64
		default:
			ok = false
		}
		if ok {
			c[longRead{path.Base(e.Location.File), strings.TrimPrefix(expr.Operator().String(), "data.hcp.authz.")}]++
			return
		}
	}
}

var _ topdown.QueryTracer = longReads(nil)

// decideTraced decides input (JSON text) and returns the decision's code
// and the calls given a long value.
func decideTraced(t *testing.T, pq oparego.PreparedEvalQuery, input string) (any, longReads) {
	t.Helper()
	reads := longReads{}
	rs, err := pq.Eval(context.Background(), oparego.EvalInput(decodeText(t, input)), oparego.EvalQueryTracer(reads))
	if err != nil || len(rs) != 1 {
		t.Fatalf("eval: %v, %d results", err, len(rs))
	}
	return rs[0].Expressions[0].Value.(map[string]any)["code"], reads
}

// decisionQuery prepares the decision over the differential tests' model.
func decisionQuery(t *testing.T) oparego.PreparedEvalQuery {
	t.Helper()
	b, err := compile.Compile(diffModel(t), "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := hcprego.ParseModules(b); err != nil {
		t.Fatal(err)
	}
	return prepare(t, b, hcprego.DecisionQuery)
}

// allowCall is a call that alice may make once an allow rule lets it,
// with argument amount written as given and the allow rules given.
func allowCall(amount string, rules []string) string {
	return fmt.Sprintf(`{"principal": {"id": "alice"}, "pack_id": "alpha", "verb_key": "write.personal.ask", "owner": "alice",
		"args": {"amount": %s}, "access": {"allow": [%s]}}`, amount, strings.Join(rules, ", "))
}

// TestLongNumbersMeetOnlyTheLengthCheck decides numbers and numeric
// strings of 65 characters, 1 KB and 1 MB against four allow rules that
// limit them: no limit accepts one (at most 64 characters), and in the
// allow rules the long value reaches count, the type checks and the two
// functions that hold the length check, nothing that reads its digits
// (a regex, concat, trim, to_number, a comparison). OPA's own number
// comparison once took seconds, and panicked, on a megabyte; the length
// check, put after the parse, would still refuse each number here, having
// parsed it.
func TestLongNumbersMeetOnlyTheLengthCheck(t *testing.T) {
	pq := decisionQuery(t)
	rule := func(limit string) string {
		return `{"pack_id": "alpha", "verb_key": "write.personal.ask", "limits": {"amount": ` + limit + `}}`
	}
	rules := []string{rule(`{"max": 5}`), rule(`{"max": "12.5"}`), rule(`{"min": 1e3}`), rule(`{"min": "-3", "max": 1e400}`)}
	allowed := map[string]bool{"count": true, "is_number": true, "is_string": true, "_number": true, "_numeric_string": true}
	for _, size := range []int{65, 1 << 10, 1 << 20} {
		digits := "1" + strings.Repeat("0", size-1)
		for kind, amount := range map[string]string{"number": digits, "numeric string": `"` + digits + `"`} {
			t.Run(fmt.Sprintf("%s of %d characters", kind, size), func(t *testing.T) {
				code, reads := decideTraced(t, pq, allowCall(amount, rules))
				if code != "confirm_required" {
					t.Errorf("decision %v, want confirm_required", code)
				}
				for r, n := range reads {
					if r.file == "allow.rego" && !allowed[r.fn] {
						t.Errorf("the allow rules gave the %d-character %s to %s (%d calls)", size, kind, r.fn, n)
					}
				}
			})
		}
	}
}

// TestLongArgumentReadOnceADecision pins a long argument in each of 10,
// then 100, allow rules to a value it does not have, as strings and as
// numbers: the calls given the argument are as many with 100 rules as
// with 10, but for the comparison of each rule's pin with it (neq, which
// stops at the first byte that differs). Each number pin once read the
// argument's token again (_number of it): 10,000 rules against a
// megabyte took 7.8 s.
func TestLongArgumentReadOnceADecision(t *testing.T) {
	pq := decisionQuery(t)
	long := strings.Repeat("7", 1<<16)
	for _, c := range []struct{ name, pin, arg string }{
		{"string pins", `["%d"]`, `["` + long + `"]`},
		{"number pins", `%d`, `"` + long + `"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			reads := func(n int) longReads {
				rules := make([]string, n)
				for i := range rules {
					rules[i] = fmt.Sprintf(`{"pack_id": "alpha", "verb_key": "write.personal.ask", "args": {"amount": `+c.pin+`}}`, i)
				}
				code, reads := decideTraced(t, pq, allowCall(c.arg, rules))
				if code != "confirm_required" {
					t.Fatalf("%d rules: decision %v, want confirm_required", n, code)
				}
				if got := reads[longRead{"allow.rego", "neq"}]; got != n {
					t.Errorf("%d rules: %d comparisons of a pin with the argument, want one a rule", n, got)
				}
				delete(reads, longRead{"allow.rego", "neq"})
				return reads
			}
			few, many := reads(10), reads(100)
			if !maps.Equal(few, many) {
				t.Errorf("calls given the argument: %v with 10 rules, %v with 100", few, many)
			}
		})
	}
}
