// Package garbagetest reads the garbage corpus (rego/testdata/garbage.json)
// that the library's tests and the integration tests against a real OPA
// both decide: two calls the example packs and grants allow (a command and
// a trigger), and inputs that break SPEC §3.1 one way or many, most of them
// one field away from an allowed call, so that a well-formedness check that
// let one through would show as an allow.
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
		Name  string `json:"name"`
		Input any    `json:"input"`
	} `json:"garbage"`
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
	return c, nil
}
