// Package garbagetest reads the garbage corpus (rego/testdata/garbage.json)
// that the library's tests and the integration tests against a real OPA
// both decide: two calls the example packs and grants allow (a command and
// a trigger), and inputs that break the input shape
// (docs/files.md#the-decision-input) one way or many, most of them one
// field away from an allowed call, so that a well-formedness check that
// let one through would show as an allow. Each names the reasons its
// invalid_input decision must carry (docs/decisions.md item 1), written
// out by hand.
package garbagetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Corpus is the decoded corpus; numbers stay json.Number.
type Corpus struct {
	Allowed         any `json:"allowed"`
	AllowedStimulus any `json:"allowed_stimulus"`
	Garbage         []struct {
		Name    string   `json:"name"`
		Input   any      `json:"input"`
		Reasons []string `json:"reasons"`
	} `json:"garbage"`
}

// Invalid is the whole decision document for a malformed input whose
// problems are reasons: nothing of the call, the row or the grants.
func Invalid(reasons []string) map[string]any {
	list := make([]any, len(reasons))
	for i, r := range reasons {
		list[i] = r
	}
	return map[string]any{"allow": false, "code": "invalid_input", "error": "invalid input", "reasons": list}
}

// Read decodes the corpus file at path.
func Read(path string) (Corpus, error) {
	var c Corpus
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	for _, g := range c.Garbage {
		if len(g.Reasons) == 0 || len(g.Reasons) > 8 {
			return c, fmt.Errorf("%s: %q names %d reasons, want 1 to 8", path, g.Name, len(g.Reasons))
		}
	}
	return c, nil
}
