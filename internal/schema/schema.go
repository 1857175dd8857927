// Package schema holds the JSON Schemas of every file and document that
// hcp-rego reads, and validates positioned documents against them, turning
// each violation into a plain-words error at the line and column of the
// offending key or value.
package schema

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// The schema files are named *.schema.json, not policy.json or
// manifest.json: a folder holding those is a pack to discovery, and this
// repository is itself a tree that hcp-rego lint and test walk.
//
//go:embed *.schema.json
var files embed.FS

// suffix ends each schema file's name.
const suffix = ".schema.json"

// Names lists the schemas that `hcp-rego schema NAME` prints.
func Names() []string {
	entries, _ := files.ReadDir(".")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), suffix))
	}
	return names
}

// Text returns the schema document called name.
func Text(name string) ([]byte, error) {
	data, err := files.ReadFile(name + suffix)
	if err != nil {
		return nil, fmt.Errorf("unknown schema %q, want one of %s", name, strings.Join(Names(), ", "))
	}
	return data, nil
}

// Schema is one compiled schema together with its document, which error
// translation reads for allowed fields and values.
type Schema struct {
	name     string
	compiled *jsonschema.Schema
	doc      map[string]any
	// items are the compiled items schemas of top-level arrays, by
	// member (see Items), under cacheMu.
	items map[string]*jsonschema.Schema
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*Schema{}
)

// Get returns the compiled schema called name. The schemas are part of the
// binary, so a failure here is a bug, and it panics.
func Get(name string) *Schema {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if s, ok := cache[name]; ok {
		return s
	}
	text, err := Text(name)
	if err != nil {
		panic(err)
	}
	s, err := compileSchema(name, text)
	if err != nil {
		panic(err)
	}
	cache[name] = s
	return s
}

// compileSchema compiles text, the schema document called name.
func compileSchema(name string, text []byte) (*Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(name+suffix, bytes.NewReader(text)); err != nil {
		return nil, err
	}
	compiled, err := c.Compile(name + suffix)
	if err != nil {
		return nil, err
	}
	s := &Schema{name: name, compiled: compiled}
	if err := json.Unmarshal(text, &s.doc); err != nil {
		return nil, err
	}
	return s, nil
}

// MaxProblems is the most violations of one file that Validate lists: a
// file of a million bad values would print a million lines, and each
// line costs more to write than its value cost to read.
const MaxProblems = 1000

// Validate checks root, the parsed contents of file, and returns its
// violations, sorted, as problem.Errors (nil when root is valid): every
// one, or the first MaxProblems and a last line that says how many more
// there are.
func (s *Schema) Validate(file string, root *document.Node) error {
	leaves, err := s.violations(file, scope{root: root}, s.compiled)
	if err != nil {
		return err
	}
	var errs problem.Errors
	for i, l := range leaves {
		if len(errs) >= MaxProblems {
			errs = append(errs, notListed(file, l.pos, len(leaves)-i))
			break
		}
		errs = append(errs, s.translate(file, scope{root: root}, l.leaf)...)
	}
	return errs.Err() // sorted, each problem once
}

// violations validates sc's root against compiled, its schema, and
// returns the leaves of what is wrong, placed and sorted; an error only
// when the validator fails other than by a violation.
func (s *Schema) violations(file string, sc scope, compiled *jsonschema.Schema) ([]placedLeaf, error) {
	err := compiled.Validate(sc.root.Value())
	if err == nil {
		return nil, nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil, &problem.Error{File: file, Msg: err.Error()}
	}
	return placed(sc.root, s.leaves(ve, sc.keywords)), nil
}

// notListed is the last line of a file's problems when more than
// MaxProblems are found: how many more leaves there are from pos on.
func notListed(file string, pos problem.Pos, more int) *problem.Error {
	return &problem.Error{File: file, Pos: pos, Msg: fmt.Sprintf("%d more violations from here on are not listed (a file lists its first %d problems)", more, MaxProblems)}
}

// placedLeaf is a leaf error and where it stands: its value's position,
// or its key's when the key is at fault. (Not the location itself: a file
// may have a million leaves, and only the first MaxProblems are told.)
type placedLeaf struct {
	leaf *jsonschema.ValidationError
	pos  problem.Pos
}

// placed returns leaves in the order of where their values stand in root,
// each found once.
func placed(root *document.Node, leaves []*jsonschema.ValidationError) []placedLeaf {
	out := make([]placedLeaf, len(leaves))
	for i, leaf := range leaves {
		out[i] = placedLeaf{leaf, locate(root, leaf).pos(root)}
	}
	slices.SortStableFunc(out, func(a, b placedLeaf) int {
		return cmp.Or(cmp.Compare(a.pos.Line, b.pos.Line), cmp.Compare(a.pos.Col, b.pos.Col), cmp.Compare(a.leaf.KeywordLocation, b.leaf.KeywordLocation))
	})
	return out
}

// Valid reports whether v, a plain decoded JSON value, satisfies the schema.
func (s *Schema) Valid(v any) bool {
	return s.compiled.Validate(v) == nil
}

// leaves flattens a validation error tree to the errors that say what is
// wrong, stopping early where the schema words the message itself. The
// tree's locations are under keywords in the schema's document.
func (s *Schema) leaves(ve *jsonschema.ValidationError, keywords string) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 || s.customMessage(keywords+ve.KeywordLocation) != "" {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, s.leaves(c, keywords)...)
	}
	return out
}
