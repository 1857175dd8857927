package testrun

import (
	"encoding/json"
	"io"

	"github.com/hcp-rego/hcp-rego/internal/explain"
)

// JSONReport is the document `--format json` writes: the totals, every
// test, and the coverage when it was asked for.
type JSONReport struct {
	Passed   int           `json:"passed"`
	Failed   int           `json:"failed"`
	Skipped  int           `json:"skipped"`
	Tests    []JSONTest    `json:"tests"`
	Coverage *JSONCoverage `json:"coverage,omitempty"`
}

// JSONTest is one test. For a failing case, GotCode and GotError are the
// code and error of the decision that came (docs/tests.md: a failure
// always says why), Got is that whole decision, and Explain the walk of
// the chain when the run was asked to explain.
type JSONTest struct {
	Kind   Kind   `json:"kind"`
	Name   string `json:"name"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	Col    int    `json:"col"`
	Status Status `json:"status"`
	// DurationNS is how long the test took, in nanoseconds.
	DurationNS int64          `json:"duration_ns"`
	Diffs      []JSONDiff     `json:"diffs,omitempty"`
	GotCode    string         `json:"got_code,omitempty"`
	GotError   string         `json:"got_error,omitempty"`
	Message    string         `json:"message,omitempty"`
	Got        map[string]any `json:"got,omitempty"`
	Explain    []explain.Step `json:"explain,omitempty"`
}

// JSONDiff is one field that differs; a want or got that is absent is
// left out.
type JSONDiff struct {
	Path string `json:"path"`
	Want any    `json:"want,omitempty"`
	Got  any    `json:"got,omitempty"`
}

// JSONCoverage is the coverage of the model.
type JSONCoverage struct {
	Percent string      `json:"percent"`
	Reached int         `json:"reached"`
	Total   int         `json:"total"`
	Rows    []JSONRow   `json:"rows"`
	Grants  []JSONGrant `json:"grants"`
}

// JSONRow is what the cases did with one row.
type JSONRow struct {
	PackID      string   `json:"pack_id"`
	Kind        string   `json:"kind"`
	Key         string   `json:"key"`
	Source      string   `json:"source"`
	Confirm     any      `json:"confirm"`
	Reached     bool     `json:"reached"`
	GateReached *bool    `json:"gate_reached,omitempty"`
	Outcomes    []string `json:"outcomes"`
}

// JSONGrant is whether some case's capability came from one grant.
type JSONGrant struct {
	Source  string `json:"source"`
	Grant   int    `json:"grant"`
	Subject string `json:"subject"`
	PackID  string `json:"pack_id"`
	Used    bool   `json:"used"`
}

// JSON builds the report's JSON document.
func (r *Report) JSON() *JSONReport {
	doc := &JSONReport{Passed: r.Count(Pass), Failed: r.Count(Fail), Skipped: r.Count(Skip), Tests: []JSONTest{}}
	for _, res := range r.Results {
		t := JSONTest{Kind: res.Kind, Name: res.Name, File: res.File, Line: res.Pos.Line, Col: res.Pos.Col, Status: res.Status,
			DurationNS: res.Duration.Nanoseconds(), Message: res.Message}
		for _, m := range res.Diffs {
			t.Diffs = append(t.Diffs, JSONDiff{Path: m.Path, Want: m.Want, Got: m.Got})
		}
		if res.Status == Fail && res.Decision != nil {
			t.Got, t.GotCode, t.GotError = res.Decision.Doc, res.Decision.Code, res.Decision.Error
			t.Explain = res.Steps
		}
		doc.Tests = append(doc.Tests, t)
	}
	if r.Coverage != nil {
		doc.Coverage = r.Coverage.json()
	}
	return doc
}

func (c *Coverage) json() *JSONCoverage {
	reached, total := c.Units()
	out := &JSONCoverage{Percent: c.Percent(), Reached: reached, Total: total, Rows: []JSONRow{}, Grants: []JSONGrant{}}
	for _, rc := range c.Rows {
		row := JSONRow{PackID: rc.Row.Pack, Kind: rc.Row.Kind.String(), Key: rc.Row.Key, Source: rc.Row.Source(),
			Confirm: rc.Row.Gate.JSON(), Reached: rc.Reached(), Outcomes: append([]string{}, rc.Outcomes...)}
		if rc.Gated() {
			gate := rc.GateReached()
			row.GateReached = &gate
		}
		out.Rows = append(out.Rows, row)
	}
	for _, gc := range c.Grants {
		g := gc.Grant
		out.Grants = append(out.Grants, JSONGrant{Source: g.Source(), Grant: g.N, Subject: g.Subject, PackID: g.PackID, Used: gc.Used})
	}
	return out
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r.JSON())
}
