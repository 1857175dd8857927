package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// MaxAliasValues bounds how many values alias expansion may add to one YAML
// document, so that a few nested anchors ("billion laughs") cannot make a
// small file cost unbounded memory.
const MaxAliasValues = 1 << 20

// yamlReader converts one parsed YAML document into positioned nodes.
type yamlReader struct {
	file    string
	errs    Errors
	done    map[*yaml.Node]*Node // anchored values, converted once
	open    map[*yaml.Node]bool  // anchored values being converted
	aliased int                  // values added by alias expansion
	stopped bool                 // a limit was passed: convert no more
	lines   int                  // lines in the file
}

// ParseYAML parses data, the contents of file, a single YAML document, into
// the same tree of positioned nodes that ParseJSON builds, so that schema
// checks and every later step read YAML and JSON alike.
//
// The document must be one that JSON could hold: keys are scalars (their
// text is the key), scalars are null, booleans, numbers that JSON can write
// (no .inf or .nan) or strings (a timestamp stays the string it was
// written as), and other tags are errors. Duplicate keys are errors, as in
// JSON. Anchors, aliases and "<<" merge keys are expanded: an alias stands
// at its own position, the values inside it at the anchor's. It returns
// every problem it finds, or else the first syntax error.
func ParseYAML(file string, data []byte) (*Node, error) {
	y := &yamlReader{file: file, done: map[*yaml.Node]*Node{}, open: map[*yaml.Node]bool{}}
	y.lines = bytes.Count(data, []byte("\n")) + 1
	if err := y.checkText(data); err != nil {
		return nil, err
	}
	doc, err := y.document(data)
	if err != nil {
		return nil, err
	}
	root := y.value(doc.Content[0], 0)
	return root, y.errs.Err()
}

// ReadYAML reads and parses one YAML input file.
func ReadYAML(path string) (*Node, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseYAML(path, data)
}

// checkText rejects what the YAML library would reject without a position:
// invalid UTF-8 and control characters.
func (y *yamlReader) checkText(data []byte) error {
	if !utf8.Valid(data) {
		return y.failAt(data, firstInvalidUTF8(data), "invalid UTF-8")
	}
	for off, r := range string(data) {
		if isYAMLControl(r) {
			return y.failAt(data, off, "control character %U is not allowed in YAML", r)
		}
	}
	return nil
}

// isYAMLControl reports whether YAML 1.2 forbids a character in a stream.
func isYAMLControl(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r' || r == 0x85:
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	}
	return r == 0xfffe || r == 0xffff
}

func (y *yamlReader) failAt(data []byte, offset int, format string, args ...any) error {
	return Errors{{File: y.file, Pos: newLineIndex(data).pos(offset), Msg: fmt.Sprintf(format, args...)}}
}

// document decodes the one document of data, refusing an empty stream and
// a second document.
func (y *yamlReader) document(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, y.syntaxError(data, err)
	}
	if len(doc.Content) == 0 {
		return nil, y.failAt(data, 0, "empty file, want a YAML document")
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, Errors{{File: y.file, Pos: y.pos(&next), Msg: "a second YAML document, want one"}}
	case !errors.Is(err, io.EOF):
		return nil, y.syntaxError(data, err)
	}
	return &doc, nil
}

var yamlLineError = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are the messages of the library's parser (not its
// scanner). For these it reports the line where the broken collection or
// node starts counted from 0, not 1.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// syntaxError positions a YAML syntax error. The library reports a line but
// no column, so the column is that of the line's first non-blank character.
func (y *yamlReader) syntaxError(data []byte, err error) error {
	m := yamlLineError.FindStringSubmatch(err.Error())
	if m == nil {
		return Errors{{File: y.file, Pos: Pos{Line: 1, Col: 1}, Msg: "invalid YAML: " + trimYAMLPrefix(err.Error())}}
	}
	line, _ := strconv.Atoi(m[1])
	if parserProblems[m[2]] {
		line++
	}
	return Errors{{File: y.file, Pos: firstNonBlank(data, line), Msg: "invalid YAML: " + m[2]}}
}

func trimYAMLPrefix(msg string) string {
	if len(msg) > 6 && msg[:6] == "yaml: " {
		return msg[6:]
	}
	return msg
}

// firstNonBlank returns the position of the first character of line that
// is neither a space nor a tab; line is clamped to the file.
func firstNonBlank(data []byte, line int) Pos {
	lines := bytes.Split(data, []byte("\n"))
	line = max(1, min(line, len(lines)))
	col := 1
	for _, r := range string(lines[line-1]) {
		if r != ' ' && r != '\t' {
			break
		}
		col++
	}
	return Pos{Line: line, Col: col}
}

// pos is where a node starts. The library puts an implied null (the value
// of "? key" at the end of a file) on the line after the last; such a
// position is moved back into the file.
func (y *yamlReader) pos(n *yaml.Node) Pos {
	if n.Line > y.lines {
		return Pos{Line: y.lines, Col: 1}
	}
	return Pos{Line: max(n.Line, 1), Col: max(n.Column, 1)}
}

func (y *yamlReader) add(n *yaml.Node, format string, args ...any) {
	y.errs.Add(y.file, y.pos(n), format, args...)
}

// value converts one YAML node at the given nesting depth; nil when it is
// wrong (the problem is recorded).
func (y *yamlReader) value(n *yaml.Node, depth int) *Node {
	if y.stopped {
		return nil
	}
	if n.Anchor != "" {
		return y.anchored(n, depth)
	}
	return y.convert(n, depth)
}

// anchored converts an anchored value once, so that problems inside it are
// reported once, at the anchor, however often aliases repeat it.
func (y *yamlReader) anchored(n *yaml.Node, depth int) *Node {
	if v, ok := y.done[n]; ok {
		return v
	}
	y.open[n] = true
	v := y.convert(n, depth)
	delete(y.open, n)
	y.done[n] = v
	return v
}

func (y *yamlReader) convert(n *yaml.Node, depth int) *Node {
	switch n.Kind {
	case yaml.AliasNode:
		return y.alias(n, depth)
	case yaml.MappingNode, yaml.SequenceNode:
		if depth >= MaxDepth {
			y.add(n, "nesting deeper than %d levels", MaxDepth)
			return nil
		}
		if n.Kind == yaml.SequenceNode {
			return y.sequence(n, depth+1)
		}
		return y.mapping(n, depth+1)
	case yaml.ScalarNode:
		return y.scalar(n)
	}
	y.add(n, "unexpected YAML node")
	return nil
}

// alias expands *name: a copy of the anchored value standing at the
// alias's position.
func (y *yamlReader) alias(n *yaml.Node, depth int) *Node {
	target := n.Alias
	if target == nil || y.open[target] {
		y.add(n, "alias *%s refers to a value that holds it", n.Value)
		return nil
	}
	v := y.value(target, depth)
	if v == nil {
		return nil
	}
	copied, err := y.clone(v, depth)
	if err != nil {
		y.add(n, "alias *%s: %v", n.Value, err)
		y.stopped = err == errTooManyAliased
		return nil
	}
	copied.Pos, copied.Key, copied.KeyPos = y.pos(n), "", Pos{}
	return copied
}

var (
	errTooManyAliased = fmt.Errorf("aliases expand to more than %d values", MaxAliasValues)
	errTooDeep        = fmt.Errorf("nesting deeper than %d levels", MaxDepth)
)

// clone deep-copies a converted value placed at depth, counting what alias
// expansion adds and stopping when the count or the nesting passes its
// limit.
func (y *yamlReader) clone(v *Node, depth int) (*Node, error) {
	y.aliased++
	if y.aliased > MaxAliasValues {
		return nil, errTooManyAliased
	}
	c := *v
	if v.Kind != Array && v.Kind != Object {
		return &c, nil
	}
	if depth >= MaxDepth {
		return nil, errTooDeep
	}
	c.Items = make([]*Node, 0, len(v.Items))
	if v.fields != nil {
		c.fields = make(map[string]*Node, len(v.fields))
	}
	for _, item := range v.Items {
		ci, err := y.clone(item, depth+1)
		if err != nil {
			return nil, err
		}
		c.Items = append(c.Items, ci)
		if c.fields != nil {
			c.fields[ci.Key] = ci
		}
	}
	return &c, nil
}

func (y *yamlReader) sequence(n *yaml.Node, depth int) *Node {
	out := &Node{Kind: Array, Pos: y.pos(n)}
	for _, item := range n.Content {
		if v := y.value(item, depth); v != nil {
			out.Items = append(out.Items, v)
		}
	}
	return out
}

// mapping converts a mapping. Explicit keys come first and must be unique;
// "<<" merge keys then add the members of their mappings that no explicit
// key (or earlier merge) gave.
func (y *yamlReader) mapping(n *yaml.Node, depth int) *Node {
	out := &Node{Kind: Object, Pos: y.pos(n), fields: map[string]*Node{}}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		key, ok := y.key(k)
		if !ok {
			continue
		}
		member := y.value(v, depth)
		if member == nil {
			continue
		}
		member.Key, member.KeyPos = key, y.pos(k)
		if first, dup := out.fields[key]; dup {
			y.add(k, "duplicate key %q (first at %d:%d)", key, first.KeyPos.Line, first.KeyPos.Col)
			continue
		}
		out.fields[key] = member
		out.Items = append(out.Items, member)
	}
	for _, m := range merges {
		y.merge(out, m, depth)
	}
	return out
}

// key returns the text of a mapping key, which must be a scalar.
func (y *yamlReader) key(k *yaml.Node) (string, bool) {
	if k.Kind != yaml.ScalarNode {
		y.add(k, "a key must be a scalar, not %s", yamlKindWords(k))
		return "", false
	}
	if len(k.Value) > MaxStringBytes {
		y.add(k, "key of %d bytes is longer than the limit of %d", len(k.Value), MaxStringBytes)
		return "", false
	}
	return k.Value, true
}

// merge adds to out the members of the mapping (or sequence of mappings)
// that a "<<" key names, where out has no member of that key yet.
func (y *yamlReader) merge(out *Node, src *yaml.Node, depth int) {
	sources := []*yaml.Node{src}
	if src.Kind == yaml.SequenceNode {
		sources = src.Content
	}
	for _, s := range sources {
		v := y.value(s, depth)
		if v == nil {
			continue
		}
		if v.Kind != Object {
			y.add(s, "a merge key (<<) takes a mapping or a list of mappings, not %s", article(v.Kind))
			continue
		}
		for _, member := range v.Items {
			if _, ok := out.fields[member.Key]; !ok {
				out.fields[member.Key] = member
				out.Items = append(out.Items, member)
			}
		}
	}
}

func yamlKindWords(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.AliasNode:
		return "an alias"
	}
	return "a value"
}

func article(k Kind) string {
	switch k {
	case Array, Object:
		return "an " + k.String()
	case Null:
		return "null"
	}
	return "a " + k.String()
}

// scalar converts a scalar by its resolved tag.
func (y *yamlReader) scalar(n *yaml.Node) *Node {
	out := &Node{Pos: y.pos(n)}
	switch tag := n.ShortTag(); tag {
	case "!!null":
		out.Kind = Null
	case "!!bool":
		out.Kind = Bool
		if err := n.Decode(&out.Bool); err != nil {
			y.add(n, "invalid boolean %q", n.Value)
			return nil
		}
	case "!!int", "!!float":
		text, ok := y.number(n)
		if !ok {
			return nil
		}
		out.Kind, out.Text = Number, text
	case "!!str", "!!timestamp":
		if len(n.Value) > MaxStringBytes {
			y.add(n, "string of %d bytes is longer than the limit of %d", len(n.Value), MaxStringBytes)
			return nil
		}
		out.Kind, out.Text = String, n.Value
	default:
		y.add(n, "unsupported YAML tag %s: want a string, number, boolean or null", tag)
		return nil
	}
	return out
}

var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// number returns the JSON text of a YAML number: as written when JSON
// could write it so, else the value YAML reads (0x1F is 31).
func (y *yamlReader) number(n *yaml.Node) (string, bool) {
	if jsonNumber.MatchString(n.Value) {
		return n.Value, true
	}
	var v any
	if err := n.Decode(&v); err != nil {
		y.add(n, "invalid number %q", n.Value)
		return "", false
	}
	switch v := v.(type) {
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case uint64:
		return strconv.FormatUint(v, 10), true
	case float64:
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			return strconv.FormatFloat(v, 'g', -1, 64), true
		}
	}
	y.add(n, "%s is not a number JSON can hold", n.Value)
	return "", false
}
