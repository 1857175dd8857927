package schema

import (
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// libraryLocation writes path as jsonschema v5 writes an instance
// location: each key escaped as RFC 6901 does and then with
// url.PathEscape, and an empty key not at all.
func libraryLocation(path []string) string {
	var b strings.Builder
	for _, seg := range path {
		seg = strings.ReplaceAll(seg, "~", "~0")
		if seg = url.PathEscape(strings.ReplaceAll(seg, "/", "~1")); seg != "" {
			b.WriteString("/" + seg)
		}
	}
	return b.String()
}

// FuzzLocations validates any document against each of our schemas and
// checks that every violation is found in the document along the moves
// of its keyword location, at a path that the library writes as the
// location it gave: what locate decodes is what the library encoded,
// whatever the keys hold, by its short way or its long one. And every
// error names a line.
func FuzzLocations(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/*/*/*.json")
	for _, path := range seeds {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	for _, k := range hostileKeys {
		q, _ := json.Marshal(k.key)
		f.Add([]byte(`{"surface_id": 1, "verbs": {` + string(q) + `: {"operation": "x", "privacy": {"": 1}}, "a": {"\u0000": 2}}, "stimuli": {` + string(q) + `: []}}`))
		f.Add([]byte(`{"id": "x", "commands": {` + string(q) + `: {"cli": [1]}, "": {"connect": 1}}}`))
		f.Add([]byte(`{"grants": [{` + string(q) + `: 1}], "cases": [{"want": {` + string(q) + `: 1}, "input": {` + string(q) + `: 1}}]}`))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := document.ParseJSON("f.json", data, nil)
		if err != nil {
			return
		}
		for _, name := range Names() {
			s := Get(name)
			ve, ok := s.compiled.Validate(root.Value()).(*jsonschema.ValidationError)
			if !ok {
				continue
			}
			for _, leaf := range s.leaves(ve, "") {
				moves, _ := steps(leaf.KeywordLocation)
				path, node, found := follow(root, moves, decodeLocation(leaf.InstanceLocation), nil)
				if !found || node == nil {
					t.Fatalf("%s: %s at %q is nowhere in the document", name, leaf.KeywordLocation, leaf.InstanceLocation)
				}
				if got := libraryLocation(path); got != leaf.InstanceLocation {
					t.Fatalf("%s: %q decoded as %q, which the library writes %q", name, leaf.InstanceLocation, path, got)
				}
				if at := locate(root, leaf); !slices.Equal(at.path, path) || at.node != node {
					t.Fatalf("%s: %s at %q located at %q, want %q", name, leaf.KeywordLocation, leaf.InstanceLocation, at.path, path)
				}
			}
			var errs problem.Errors
			if !errors.As(s.Validate("f.json", root), &errs) {
				t.Fatalf("%s: no errors listed", name)
			}
			for _, e := range errs {
				if e.Pos.Line == 0 {
					t.Fatalf("%s: %v names no line", name, e)
				}
			}
		}
	})
}
