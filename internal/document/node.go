// Package document reads input files (JSON and YAML) strictly, within
// the run's budget of values, and remembers where every value stands, so
// that any later check (JSON Schema, lint, compile) can name the
// file, line and column of what it rejects.
//
// JSON is read token by token; each token's start offset is found by an
// offset walk over the raw bytes and mapped to a line and a column. A good
// file is read with jsontext's token reader (quick.go); a file with any
// problem is read again with encoding/json's, whose messages name it.
// Duplicate object keys, invalid UTF-8, excessive nesting and oversized
// strings are errors, not silent choices.
package document

import (
	"encoding/json"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// Kind is the JSON type of a value.
type Kind uint8

// The JSON types.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

// String names the kind as JSON Schema does ("object", "string", ...).
func (k Kind) String() string { return kindNames[k] }

// Node is one value of a parsed file with its position.
type Node struct {
	Kind   Kind
	Pos    problem.Pos // where the value starts
	Key    string      // the member's key, for a value inside an object
	KeyPos problem.Pos // where that key starts
	Bool   bool        // the value of a Bool
	Text   string      // the value of a String, the literal text of a Number
	Items  []*Node

	// fields maps each key of an object to its member. quickParse leaves
	// it nil for a small object (up to smallObject members), whose
	// members are found along Items: a map for each of a large grant
	// file's hundred thousand grants cost more than it saved.
	fields map[string]*Node
}

// smallObject is the most members an object has that quickParse does not
// index by key.
const smallObject = 8

// Field returns the member of an object with the given key, or nil.
func (n *Node) Field(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	return n.member(key)
}

// member returns the member of the object n with the given key, or nil.
func (n *Node) member(key string) *Node {
	if n.fields != nil {
		return n.fields[key]
	}
	for _, m := range n.Items {
		if m.Key == key {
			return m
		}
	}
	return nil
}

// Str returns the value of a String node, or "" for any other node.
func (n *Node) Str() string {
	if n == nil || n.Kind != String {
		return ""
	}
	return n.Text
}

// Value converts the node to the plain Go value that encoding/json with
// UseNumber would produce (map[string]any, []any, json.Number, string, bool,
// nil), which is what the JSON Schema validator reads.
func (n *Node) Value() any {
	switch n.Kind {
	case Bool:
		return n.Bool
	case Number:
		return json.Number(n.Text)
	case String:
		return n.Text
	case Array:
		out := make([]any, len(n.Items))
		for i, item := range n.Items {
			out[i] = item.Value()
		}
		return out
	case Object:
		out := make(map[string]any, len(n.Items))
		for _, item := range n.Items {
			out[item.Key] = item.Value()
		}
		return out
	}
	return nil
}

// Members returns the members of an object (in file order) or the elements
// of an array; nil for a nil node or a scalar.
func (n *Node) Members() []*Node {
	if n == nil {
		return nil
	}
	return n.Items
}

// IsTrue reports whether n is the JSON value true.
func (n *Node) IsTrue() bool { return n != nil && n.Kind == Bool && n.Bool }

// Strings returns the string elements of an array node.
func (n *Node) Strings() []string {
	out := []string{}
	for _, item := range n.Members() {
		out = append(out, item.Text)
	}
	return out
}
