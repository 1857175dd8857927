package rego_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// Numbers an allow rule judges (docs/decisions.md item 8): exact decimals
// of at most 64 characters as written, never rounded to a float64.

var (
	// above64 is 12.5 plus a little, in 64 characters; one more digit
	// makes it 65, which no limit accepts.
	above64 = "12.5" + strings.Repeat("0", 59) + "1"
	above65 = "12.5" + strings.Repeat("0", 60) + "1"
)

// spellings are numbers as callers write them: one value in several
// spellings, decimals that float64 cannot tell apart, exponents, zero's
// signs, exponents beyond int64, and the 64-character bound either side.
var spellings = []string{
	"12.50", "12.5", "1.25e1", "125E-1", "12.500000000000000010", "12.499999999999999999",
	"1000000000000000063.10", "1000000000000000000.50", "1e2", "100", "100.0", "1E+2",
	"0", "-0", "0.0", "-0.0", "-12.50", "0.1000000000000000000000000000001", "0.1",
	above64, above65, "1e30000", "9.99e29999", "-1e-30000",
}

// numericString is the string form docs/decisions.md (item 8) counts as a
// number.
var numericString = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// forms are the ways to write a number in JSON: as a number and, when its
// spelling is a numeric string, as a string too.
func forms(n string) []string {
	if numericString.MatchString(n) {
		return []string{n, `"` + n + `"`}
	}
	return []string{n}
}

// ruleCall is the JSON text of a gated call that a principal holds the
// capability and land for, with amount written as given and one allow
// rule, so the decision is allowed exactly when the rule matches.
func ruleCall(amount, rule string) string {
	return fmt.Sprintf(`{"principal": {"id": "alice"}, "pack_id": "alpha", "verb_key": "write.personal.ask", "owner": "alice",
		"args": {"amount": %s}, "access": {"allow": [{"pack_id": "alpha", "verb_key": "write.personal.ask", %s}]}}`, amount, rule)
}

// decodeText decodes JSON text with its numbers as written (json.Number),
// as OPA's REST API reads an input.
func decodeText(t testing.TB, text string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return v
}

// TestNumberSpellingsDifferential holds Rego to the reference over every
// pair of spellings, each as a number and as a string, as a limit's min,
// its max and a pinned value.
func TestNumberSpellingsDifferential(t *testing.T) {
	p := newPair(t, diffModel(t), "", reference.Ext{})
	var n, allowed int
	grid := newSample(1)
	for _, x := range spellings {
		for _, b := range spellings {
			for _, xs := range forms(x) {
				for _, bs := range forms(b) {
					for _, rule := range []string{
						`"limits": {"amount": {"max": ` + bs + `}}`,
						`"limits": {"amount": {"min": ` + bs + `}}`,
						`"args": {"amount": ` + bs + `}`,
					} {
						if !grid.keep() {
							continue
						}
						text := ruleCall(xs, rule)
						got, diff := p.compare(decodeText(t, text))
						if diff != "" {
							t.Errorf("Rego and the reference disagree on %s:\n%s", text, diff)
						}
						n++
						if got["allow"] == true {
							allowed++
						}
					}
				}
			}
		}
	}
	// Both outcomes must occur, or the grid tests nothing.
	if allowed == 0 || allowed == n {
		t.Errorf("%d of %d calls allowed: the grid does not reach both outcomes", allowed, n)
	}
}

// TestNumberLimits pins what docs/decisions.md (item 8) says of chosen
// spellings, so that a reference that rounded as Rego once did would not
// hide it.
func TestNumberLimits(t *testing.T) {
	p := newPair(t, diffModel(t), "", reference.Ext{})
	tests := []struct {
		name, amount, rule string
		allow              bool
	}{
		{"decimal above a max float64 rounds to it", `"12.500000000000000010"`, `"limits": {"amount": {"max": 12.50}}`, false},
		{"as a number too", `12.500000000000000010`, `"limits": {"amount": {"max": 12.50}}`, false},
		{"62.6 over a long max", `"1000000000000000063.10"`, `"limits": {"amount": {"max": 1000000000000000000.50}}`, false},
		{"just below a long max", `"1000000000000000000.49"`, `"limits": {"amount": {"max": 1000000000000000000.50}}`, true},
		{"exponent equal to max", `1.25e1`, `"limits": {"amount": {"max": "12.50"}}`, true},
		{"negative zero at min zero", `-0`, `"limits": {"amount": {"min": 0}}`, true},
		{"below min by 1e-31", `0.0999999999999999999999999999999`, `"limits": {"amount": {"min": 0.1}}`, false},
		{"64 characters judged", `"` + above64 + `"`, `"limits": {"amount": {"max": 12.6}}`, true},
		{"65 characters fail", `"` + above65 + `"`, `"limits": {"amount": {"max": 12.6}}`, false},
		{"65-character number fails", above65, `"limits": {"amount": {"max": 12.6}}`, false},
		{"65-character bound fails", `12`, `"limits": {"amount": {"max": ` + above65 + `}}`, false},
		{"exponents beyond float64", `1e30000`, `"limits": {"amount": {"max": 9.99e29999}}`, false},
		{"exponents beyond float64, below", `-1e30000`, `"limits": {"amount": {"max": "-99"}}`, true},
		{"pinned value float64 rounds to", `12.500000000000000010`, `"args": {"amount": 12.50}`, false},
		{"pinned value by value", `1e2`, `"args": {"amount": 100.0}`, true},
		{"pinned long number as written", above65, `"args": {"amount": ` + above65 + `}`, true},
		{"pinned long number by value is not enough", above65, `"args": {"amount": ` + above65 + `0}`, false},
		{"pinned inside an array", `[1e2, "x"]`, `"args": {"amount": [100, "x"]}`, true},
		{"pinned inside an array, rounded", `[12.500000000000000010]`, `"args": {"amount": [12.50]}`, false},
		{"pinned number is not its string", `"100"`, `"args": {"amount": 100}`, false},
		{"pinned number inside is not its string", `{"a": ["12.5"]}`, `"args": {"amount": {"a": [12.50]}}`, false},
		{"pinned object by value", `{"b": -0, "a": [1.0, {"c": null}]}`, `"args": {"amount": {"a": [1, {"c": null}], "b": 0}}`, true},
		{"pinned object with a member more", `{"a": 1, "b": 2}`, `"args": {"amount": {"a": 1}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := ruleCall(tt.amount, tt.rule)
			got, diff := p.compare(decodeText(t, text))
			if diff != "" {
				t.Errorf("Rego and the reference disagree on %s:\n%s", text, diff)
			}
			if got["allow"] != tt.allow {
				t.Errorf("%s: allow %v (%v), want %v", text, got["allow"], got["code"], tt.allow)
			}
		})
	}
}

// TestPreviewNumbersAsWritten renders two arguments that OPA's number
// comparison calls equal: each keeps its own text in preview.cli.
func TestPreviewNumbersAsWritten(t *testing.T) {
	p := newPair(t, diffModel(t), "", reference.Ext{})
	for _, tt := range []struct{ args, cli string }{
		{`{"amount": 12.500000000000000010, "payee": 12.50}`, "12.500000000000000010 --to 12.50"},
		{`{"amount": 12.50, "payee": 12.500000000000000010}`, "12.50 --to 12.500000000000000010"},
		{`{"amount": [12.500000000000000010], "payee": [12.50]}`, "'[12.500000000000000010]' --to '[12.50]'"},
	} {
		text := `{"principal": {"id": "alice"}, "pack_id": "alpha", "verb_key": "write.personal.always", "owner": "alice", "args": ` + tt.args + `}`
		got, diff := p.compare(decodeText(t, text))
		if diff != "" {
			t.Errorf("Rego and the reference disagree on %s:\n%s", text, diff)
		}
		preview, _ := got["preview"].(map[string]any)
		if want := "alpha write.personal.always " + tt.cli + " --apply"; preview["cli"] != want {
			t.Errorf("%s: preview.cli %q, want %q", tt.args, preview["cli"], want)
		}
	}
}
