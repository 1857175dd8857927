package testrun

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hcp-rego/hcp-rego/internal/explain"
	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// Kind says what a test is.
type Kind string

// The two kinds of tests.
const (
	KindCase Kind = "case" // a decision case from a case file
	KindRego Kind = "rego" // a Rego unit test run by OPA's tester
)

// Status is a test's outcome.
type Status string

// The outcomes. A skipped test (a Rego test named todo_...) counts in
// neither total.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Result is the outcome of one test.
type Result struct {
	Kind   Kind
	Name   string // the case's name, or the Rego test's package and rule
	File   string
	Pos    problem.Pos
	Status Status
	// Diffs are the fields where a failing case's decision differs from
	// its want.
	Diffs []Mismatch
	// Message says why a test failed when Diffs cannot: a Rego test's
	// failing expression or error, an evaluation error.
	Message string
	// Decision is the decision a case got; nil for a Rego test.
	Decision *hcprego.Decision
	// Steps walk the chain for a failing case, as `eval --explain` does;
	// nil unless the run was asked to explain (Options.Explain).
	Steps []explain.Step
	// Duration is how long the test took: a case's decision and its
	// comparison with the want, a Rego test's run by OPA's tester; 0 for
	// a skipped test.
	Duration time.Duration

	// asBuilt marks a case decided with bundles as built: coverage is of
	// the model of the packs and grant files, whose rows its decision
	// does not judge.
	asBuilt bool
}

// Location renders where the test is, "file:line", for a person: the
// file's name Printable (a name may hold a line break or an escape).
func (r *Result) Location() string { return where(r.File, r.Pos.Line) }

// where is "file:line" with the file's name Printable.
func where(file string, line int) string { return fmt.Sprintf("%s:%d", printable.Quote(file), line) }

// Details are the lines that explain a failure: the fields that differ;
// the code and error of the decision that came, so that a failed
// `allow: true` says why the call was refused (docs/tests.md); the
// message; and, when the run was asked to explain, the walk of the chain.
// Each is one line, Escaped, and the message's later lines (what a Rego
// test printed) are indented: no input starts a line of any format
// (docs/reliability.md, "Names cannot write output of their own").
func (r *Result) Details() []string {
	var lines []string
	for _, m := range r.Diffs {
		lines = append(lines, printable.Escape(m.String()))
	}
	if r.Status == Fail && r.Decision != nil {
		lines = append(lines, "decision: "+printable.Escape(r.Why()))
	}
	if r.Message != "" {
		first, rest, more := strings.Cut(r.Message, "\n")
		lines = append(lines, printable.Escape(first))
		for _, line := range strings.Split(rest, "\n") {
			if more {
				lines = append(lines, "  "+printable.Escape(line))
			}
		}
	}
	if r.Steps != nil {
		lines = append(lines, "explain:")
		for _, line := range strings.Split(strings.TrimSuffix(explain.PrettySteps(r.Steps), "\n"), "\n") {
			lines = append(lines, "  "+printable.Escape(line))
		}
	}
	return lines
}

// Why is the code and error of the decision a case got, as
// `code "land_denied", error "land denied"`; the error is left out when
// the decision has none. Values are JSON text, so that no character of an
// input reaches a terminal unescaped.
func (r *Result) Why() string {
	why := "code " + compact(r.Decision.Code)
	if e := r.Decision.Error; e != "" {
		why += ", error " + compact(e)
	}
	return why
}

// Report is everything one run found: each test's result, sorted by file
// and position, and the model's coverage when it was asked for.
type Report struct {
	Results  []*Result
	Coverage *Coverage
	// Times adds each test's time to its pretty line (test -v).
	Times bool
}

// Count returns how many tests had the status.
func (r *Report) Count(s Status) int {
	n := 0
	for _, res := range r.Results {
		if res.Status == s {
			n++
		}
	}
	return n
}

// Totals is the line a run ends with: "N passed, N failed".
func (r *Report) Totals() string {
	return fmt.Sprintf("%d passed, %d failed", r.Count(Pass), r.Count(Fail))
}

// sortResults orders results by file, line, column and name, so that
// output is stable whatever order OPA's tester finishes in.
func sortResults(results []*Result) {
	slices.SortStableFunc(results, func(a, b *Result) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col),
			cmp.Compare(a.Name, b.Name),
		)
	})
}
