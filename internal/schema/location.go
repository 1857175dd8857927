package schema

import (
	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// jsonschema v5 writes a location (InstanceLocation, KeywordLocation) as
// a JSON pointer whose every segment it escapes twice: first as RFC 6901
// does ("~" as "~0", "/" as "~1"), then with url.PathEscape (a space as
// %20, a comma as %2C, a "%" as %25, "é" as %C3%A9). Read as a plain JSON
// pointer, the key "3 passed, 0 failed" is "3%20passed%2C%200%20failed",
// which no object holds. And it writes no segment at all for an empty
// key: it appends "/" and the escaped key only when that is not empty, so
// the value of verbs[""] is at "/verbs", where verbs itself is too. See
// escape and validate in the library's schema.go.

// unescapeTilde undoes the RFC 6901 escapes, built once (see
// unescapePointer in internal/document).
var unescapeTilde = strings.NewReplacer("~1", "/", "~0", "~")

// decodeSegment returns the key or index that one segment of a location
// names, undoing the library's escapes in the reverse order.
func decodeSegment(seg string) string {
	if strings.IndexByte(seg, '%') >= 0 {
		if s, err := url.PathUnescape(seg); err == nil { // PathEscape's output always unescapes
			seg = s
		}
	}
	if strings.IndexByte(seg, '~') >= 0 {
		seg = unescapeTilde.Replace(seg)
	}
	return seg
}

// decodeLocation returns the decoded segments of a location; nil for "".
func decodeLocation(loc string) []string {
	if loc == "" {
		return nil
	}
	segs := strings.Split(strings.TrimPrefix(loc, "/"), "/")
	for i, s := range segs {
		segs[i] = decodeSegment(s)
	}
	return segs
}

// step is one move of a keyword location into the instance: into a
// member of an object (by a key named in the schema, or by any key), or
// into an element of an array.
type step struct {
	member bool   // into a member of an object, else an element of an array
	named  bool   // the keyword names the key: properties/NAME
	name   string // that key, decoded
	toKey  bool   // propertyNames: to check the member's key, not its value
}

// steps reads a keyword location as the library writes it (Draft 2020-12)
// and returns the moves it makes into the instance, in order, and whether
// the last is propertyNames, whose schema checks a member's key rather
// than its value. Keywords that check the value in place (allOf, $ref,
// not, if, dependentSchemas, ...) make no move; those that take an
// argument (properties/NAME, allOf/0) skip it, so a property called
// "items" is not read as the keyword.
func steps(keywordLocation string) (moves []step, key bool) {
	segs := strings.Split(keywordLocation, "/")
	for i := 1; i < len(segs); i++ {
		last := i == len(segs)-1
		switch segs[i] {
		case "properties":
			if !last {
				i++
				moves = append(moves, step{member: true, named: true, name: decodeSegment(segs[i])})
			}
		case "patternProperties":
			if !last {
				i++
				moves = append(moves, step{member: true})
			}
		case "additionalProperties":
			// A schema checks each member; false (kept as a bool in v5)
			// is reported at the object, as the last segment.
			if !last {
				moves = append(moves, step{member: true})
			}
		case "unevaluatedProperties":
			moves = append(moves, step{member: true})
		case "propertyNames":
			moves = append(moves, step{member: true, toKey: true})
		case "prefixItems":
			if !last {
				i++
				moves = append(moves, step{})
			}
		case "items", "additionalItems", "unevaluatedItems":
			moves = append(moves, step{})
			if !last && isIndex(segs[i+1]) { // items/0: an older draft's tuple
				i++
			}
		case "contains":
			// Its own failure ("no items match") is at the array, as the
			// last segment; a cause under it checks an element.
			if !last {
				moves = append(moves, step{})
			}
		case "allOf", "anyOf", "oneOf", "dependentSchemas", "dependencies", "dependentRequired":
			i++ // the index or key that the keyword takes
		}
	}
	return moves, len(moves) > 0 && moves[len(moves)-1].toKey
}

// isIndex reports whether seg is an array index as the library writes
// one (strconv.Itoa of a non-negative int).
func isIndex(seg string) bool {
	if seg == "" || len(seg) > 1 && seg[0] == '0' {
		return false
	}
	for i := 0; i < len(seg); i++ {
		if seg[i] < '0' || seg[i] > '9' {
			return false
		}
	}
	return true
}

// location is where a violation stands in a document.
type location struct {
	path []string       // keys and indexes from the root, as written
	key  bool           // the violation is of the last key, not its value
	node *document.Node // the value (for key, the member); nil when none
}

// pos is where the violation stands: its value's position, or its key's
// when the key is at fault; root's when it names no node.
func (l location) pos(root *document.Node) problem.Pos {
	switch {
	case l.node == nil:
		return root.Pos
	case l.key:
		return l.node.KeyPos
	}
	return l.node.Pos
}

// locate finds the value that leaf is about: its InstanceLocation
// decoded, with an empty key put back wherever the library dropped one,
// as the moves of its KeywordLocation say there must be. When the
// document and the locations disagree (no such value), it keeps the
// decoded InstanceLocation and names no node.
func locate(root *document.Node, leaf *jsonschema.ValidationError) location {
	segs := decodeLocation(leaf.InstanceLocation)
	// Most locations need no moves: where no object on the way holds an
	// empty key, none was dropped, and only propertyNames is about a
	// key. (A file of a million bad grants has a million leaves.)
	if node, ok := plain(root, segs); ok && !strings.Contains(leaf.KeywordLocation, "propertyNames") {
		return location{path: segs, node: node}
	}
	moves, key := steps(leaf.KeywordLocation)
	if path, node, ok := follow(root, moves, segs, nil); ok {
		return location{path: path, key: key, node: node}
	}
	return location{path: segs, key: key, node: root.At(segs)}
}

// plain returns the node that segs name from root, and whether it and
// every object on the way there holds no empty key, so that the library
// can have dropped none on the way.
func plain(root *document.Node, segs []string) (*document.Node, bool) {
	n := root
	for i := 0; n != nil && n.Field("") == nil; i++ {
		if i == len(segs) {
			return n, true
		}
		n = n.At(segs[i : i+1])
	}
	return nil, false
}

// follow walks moves from n, taking each key or index from segs, or an
// empty key where the library wrote none, and returns the path taken and
// the node it ends at. It fails unless the moves take every segment and
// each step finds a value. Where both a key from segs and an empty key
// could be taken (an object with members "a" and "" and a location that
// could be either), it takes the key from segs first and the other if
// that leads nowhere; the library's text cannot tell them apart.
func follow(n *document.Node, moves []step, segs, path []string) ([]string, *document.Node, bool) {
	if len(moves) == 0 {
		return path, n, len(segs) == 0
	}
	m := moves[0]
	switch {
	case !m.member:
		if len(segs) == 0 || n.Kind != document.Array {
			return nil, nil, false
		}
		child := n.At(segs[:1])
		if child == nil {
			return nil, nil, false
		}
		return follow(child, moves[1:], segs[1:], extend(path, segs[0]))
	case m.named && m.name == "":
		return into(n, "", moves[1:], segs, path)
	case m.named:
		if len(segs) == 0 || segs[0] != m.name {
			return nil, nil, false
		}
		return into(n, m.name, moves[1:], segs[1:], path)
	}
	if len(segs) > 0 {
		if p, node, ok := into(n, segs[0], moves[1:], segs[1:], path); ok {
			return p, node, true
		}
	}
	return into(n, "", moves[1:], segs, path)
}

// into steps into the member of n with key k and follows the rest.
func into(n *document.Node, k string, moves []step, segs, path []string) ([]string, *document.Node, bool) {
	child := n.Field(k)
	if child == nil {
		return nil, nil, false
	}
	return follow(child, moves, segs, extend(path, k))
}

// extend returns path and seg after it, never writing into path's array,
// which another way tried may hold too.
func extend(path []string, seg string) []string {
	return append(path[:len(path):len(path)], seg)
}
