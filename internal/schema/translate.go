package schema

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// violation is one leaf validation error, resolved against the document
// and the schema.
type violation struct {
	file    string
	node    *document.Node // the offending value
	path    string         // where it is, in prose
	keyword string         // the schema keyword that failed
	rule    map[string]any
	leaf    *jsonschema.ValidationError
}

// scope is what one validation checks: a whole document, or one element
// of an array in it (see Items), which messages name as they name it in
// the document.
type scope struct {
	root *document.Node // the value validated
	// path is root's path in the document, in prose as PathTo writes it
	// ("grants[4]"); "" for the document.
	path string
	// keywords is the location of root's schema in the document's
	// ("/properties/grants/items"); "" for the document's.
	keywords string
}

// pathTo writes path (keys and indexes from root) in prose, from the
// document's top level.
func (sc scope) pathTo(path []string) string {
	rel := sc.root.PathTo(path)
	switch {
	case sc.path == "":
		return rel
	case rel == "" || rel[0] == '[':
		return sc.path + rel
	}
	return sc.path + "." + rel
}

// translate turns a leaf validation error into plain-words errors.
func (s *Schema) translate(file string, sc scope, leaf *jsonschema.ValidationError) problem.Errors {
	root := sc.root
	at := locate(root, leaf)
	keywords := sc.keywords + leaf.KeywordLocation
	parent, keyword := splitLast(keywords)
	v := violation{
		file:    file,
		node:    cmp.Or(at.node, root),
		path:    s.prose(sc.pathTo(at.path)),
		keyword: keyword,
		rule:    s.resolve(parent),
		leaf:    leaf,
	}
	if at.key && at.node != nil {
		v.path = s.prose(sc.pathTo(at.path[:len(at.path)-1]))
		return v.badKey(s.customMessage(keywords))
	}
	if msg := s.customMessage(keywords); msg != "" {
		if keyword == "pattern" { // the words for the pattern, after the value
			return v.at(v.node.Pos, "%s: %s %s", v.where(), compact(v.node.Value()), msg)
		}
		return v.at(v.node.Pos, "%s: %s", v.where(), msg)
	}
	switch keyword {
	case "additionalProperties":
		return v.unknownFields()
	case "required":
		return v.missingFields()
	case "enum":
		return v.at(v.node.Pos, "%s: unknown value %s, want %s", v.where(), compact(v.node.Value()), oneOf(v.rule["enum"]))
	case "const":
		return v.at(v.node.Pos, "%s: must be %s, got %s", v.where(), compact(v.rule["const"]), compact(v.node.Value()))
	case "type":
		return v.at(v.node.Pos, "%s: must be %s, got %s", v.where(), typeWords(v.rule["type"]), article(v.node.Kind.String()))
	case "minLength":
		return v.at(v.node.Pos, "%s: must not be empty", v.where())
	case "pattern":
		return v.at(v.node.Pos, "%s: %s does not match %s", v.where(), compact(v.node.Value()), v.rule["pattern"])
	case "maxLength":
		return v.at(v.node.Pos, "%s: longer than %v characters", v.where(), v.rule["maxLength"])
	case "minItems":
		return v.at(v.node.Pos, "%s: must not be empty", v.where())
	}
	return v.at(v.node.Pos, "%s: %s", v.where(), leaf.Message)
}

// grantIndex is the path of a grant in a grant file, and what follows.
var grantIndex = regexp.MustCompile(`^grants\[(\d+)\]\.?`)

// prose is a path as a message says it. In a grant file a grant is "grant
// N", counted from 1 as lint counts grants ("grant 3, capabilities[0]"),
// not grants[2].
func (s *Schema) prose(path string) string {
	m := grantIndex.FindStringSubmatch(path)
	if s.name != "grants" || m == nil {
		return path
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return path
	}
	if rest := path[len(m[0]):]; rest != "" {
		return fmt.Sprintf("grant %d, %s", n+1, rest)
	}
	return fmt.Sprintf("grant %d", n+1)
}

func (v violation) at(pos problem.Pos, format string, args ...any) problem.Errors {
	return problem.Errors{{File: v.file, Pos: pos, Msg: fmt.Sprintf(format, args...)}}
}

// where names the offending value for a message.
func (v violation) where() string {
	if v.path == "" {
		return "top level"
	}
	return problem.Clip(v.path)
}

// in names the object that holds an offending member, clipped as where
// clips it: a key of a megabyte is in the path.
func (v violation) in() string {
	if v.path == "" {
		return ""
	}
	return " in " + problem.Clip(v.path)
}

func (v violation) unknownFields() problem.Errors {
	known, _ := v.rule["properties"].(map[string]any)
	var errs problem.Errors
	for _, member := range v.node.Items {
		if _, ok := known[member.Key]; !ok {
			errs = append(errs, v.at(member.KeyPos, "unknown field %q%s", problem.Clip(member.Key), v.in())...)
		}
	}
	return errs
}

// badKey reports a key that its object's propertyNames refuses, at the
// key; v.node is its member and v.path the object's. An empty key is
// the one our schemas refuse (minLength 1 where keys are names).
func (v violation) badKey(custom string) problem.Errors {
	switch {
	case custom != "":
		return v.at(v.node.KeyPos, "key %q%s: %s", problem.Clip(v.node.Key), v.in(), custom)
	case v.keyword == "minLength":
		return v.at(v.node.KeyPos, "empty key%s: a name must not be empty", v.in())
	}
	return v.at(v.node.KeyPos, "key %q%s: %s", problem.Clip(v.node.Key), v.in(), v.leaf.Message)
}

func (v violation) missingFields() problem.Errors {
	required, _ := v.rule["required"].([]any)
	var errs problem.Errors
	for _, r := range required {
		if name, _ := r.(string); v.node.Field(name) == nil {
			errs = append(errs, v.at(v.node.Pos, "missing field %q%s", name, v.in())...)
		}
	}
	return errs
}

// customMessage returns the message the schema words for the keyword at
// keywordLocation (an "x-messages" member beside it), if any.
func (s *Schema) customMessage(keywordLocation string) string {
	parent, keyword := splitLast(keywordLocation)
	msgs, _ := s.resolve(parent)["x-messages"].(map[string]any)
	msg, _ := msgs[keyword].(string)
	return msg
}

// resolve follows a keyword location (a JSON pointer through the schema
// document, with "$ref" steps, escaped as the validator escapes it) to
// the schema object it names.
func (s *Schema) resolve(location string) map[string]any {
	var cur any = s.doc
	for _, seg := range decodeLocation(location) {
		switch node := cur.(type) {
		case map[string]any:
			if seg == "$ref" {
				ref, _ := node["$ref"].(string)
				cur = s.resolve(strings.TrimPrefix(ref, "#"))
				continue
			}
			cur = node[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(node) {
				return nil
			}
			cur = node[i]
		}
	}
	m, _ := cur.(map[string]any)
	return m
}

func splitLast(ptr string) (string, string) {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return "", ptr
	}
	return ptr[:i], ptr[i+1:]
}

// compact renders a JSON value as compact JSON text.
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return problem.Clip(string(b))
}

// oneOf renders allowed values as `"a", "b" or "c"`.
func oneOf(values any) string {
	list, _ := values.([]any)
	words := make([]string, len(list))
	for i, v := range list {
		words[i] = compact(v)
	}
	return joinOr(words)
}

func joinOr(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// typeWords renders a schema "type" as "a string" or "a string or an object".
func typeWords(t any) string {
	var names []string
	switch t := t.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, n := range t {
			names = append(names, fmt.Sprint(n))
		}
	}
	words := make([]string, len(names))
	for i, n := range slices.Clone(names) {
		words[i] = article(n)
	}
	return joinOr(words)
}

func article(kind string) string {
	switch kind {
	case "array", "object", "integer":
		return "an " + kind
	case "null":
		return "null"
	}
	return "a " + kind
}
