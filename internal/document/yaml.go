package document

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// yamlReader converts one parsed YAML document into positioned nodes.
type yamlReader struct {
	file    string
	errs    problem.Errors
	done    map[*yaml.Node]*Node // anchored values, converted once
	open    map[*yaml.Node]bool  // anchored values being converted
	aliases *count               // what alias expansion may still add
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
//
// The values the file can make (yamlBound) are taken from budget, the
// budget of the run that reads file, before the YAML library parses it,
// and what alias expansion adds as it adds them; nil gives file a budget
// of its own, for a run that reads one YAML file only.
func ParseYAML(file string, data []byte, budget *Budget) (*Node, error) {
	if budget == nil {
		budget = NewBudget()
	}
	y := &yamlReader{file: file, done: map[*yaml.Node]*Node{}, open: map[*yaml.Node]bool{}, aliases: &budget.aliases}
	y.lines = len(splitLines(data))
	if err := y.checkText(data); err != nil {
		return nil, err
	}
	values := yamlBound(data)
	if !budget.yaml.take(values) {
		return nil, y.failAt(data, yamlPast(data, budget.yaml.left.Load()),
			"more values than the limit of %d for the YAML files of one run (counted before parsing: a ':', '?' or '{' counts 3, a '[', ',' or '-' 2)", budget.yaml.limit)
	}
	doc, err := y.document(data)
	if err != nil {
		return nil, err
	}
	root := y.value(doc.Content[0], 0)
	return root, y.errs.Err()
}

// ReadYAML reads and parses one YAML input file, with the run's budget
// (see ParseYAML).
func ReadYAML(path string, budget *Budget) (*Node, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseYAML(path, data, budget)
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
	return problem.Errors{{File: y.file, Pos: newLineIndex(data).pos(offset), Msg: fmt.Sprintf(format, args...)}}
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
		return nil, problem.Errors{{File: y.file, Pos: y.pos(&next), Msg: "a second YAML document, want one"}}
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
		return problem.Errors{{File: y.file, Pos: problem.Pos{Line: 1, Col: 1}, Msg: "invalid YAML: " + trimYAMLPrefix(err.Error())}}
	}
	line, _ := strconv.Atoi(m[1])
	if parserProblems[m[2]] {
		line++
	}
	return problem.Errors{{File: y.file, Pos: firstNonBlank(data, line), Msg: "invalid YAML: " + m[2]}}
}

func trimYAMLPrefix(msg string) string {
	if len(msg) > 6 && msg[:6] == "yaml: " {
		return msg[6:]
	}
	return msg
}

// firstNonBlank returns the position of the first character of line that
// is neither a space nor a tab; line is clamped to the file.
func firstNonBlank(data []byte, line int) problem.Pos {
	lines := splitLines(data)
	line = max(1, min(line, len(lines)))
	col := 1
	for _, r := range string(lines[line-1]) {
		if r != ' ' && r != '\t' {
			break
		}
		col++
	}
	return problem.Pos{Line: line, Col: col}
}

// pos is where a node starts. The library puts an implied null (the value
// of "? key" at the end of a file) on the line after the last; such a
// position is moved back into the file.
func (y *yamlReader) pos(n *yaml.Node) problem.Pos {
	if n.Line > y.lines {
		return problem.Pos{Line: y.lines, Col: 1}
	}
	return problem.Pos{Line: max(n.Line, 1), Col: max(n.Column, 1)}
}

func (y *yamlReader) add(n *yaml.Node, format string, args ...any) {
	y.errs.Add(y.file, y.pos(n), format, args...)
}
