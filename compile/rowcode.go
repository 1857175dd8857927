package compile

import (
	"fmt"
	"strconv"
	"strings"
)

// packedRow is a row as the generated pack module holds it, one string
// (encodeRow), decoded as the decision library decodes it (rego/library/row.rego):
// strings parse and compile several times faster in OPA than arrays or
// objects of the same rows.
type packedRow struct {
	Operation  string   `json:"operation"`
	Land       string   `json:"land"`
	Gate       string   `json:"gate"` // "false", "true" or "always"
	Capability string   `json:"capability"`
	Line       int      `json:"line"`
	Template   string   `json:"template,omitempty"` // the cli template when a string can hold it
	Format     string   `json:"format,omitempty"`   // a gated row's preview format (previewText)
	Names      []string `json:"names,omitempty"`    // the arguments the format takes, in order
}

// gateWords are a gate's words in a packed row.
var gateWords = map[Gate]string{NoGate: "false", GateTrue: "true", GateAlways: "always"}

// encodeRow is the generated form of a row: "operation land confirm
// capability line", then " | " and the cli template when it has one that
// splits back to itself on spaces, then, for a gated command, its preview
// lines (previewText).
func encodeRow(r *Row) string {
	text := r.Operation + " " + r.Land + " " + gateWords[r.Gate] + " " + r.Capability() + " " + strconv.Itoa(r.Line)
	if stringTemplate(r.CLI) {
		text += " | " + strings.Join(r.CLI, " ")
	}
	if preview, ok := previewText(r); ok {
		text += "\n" + preview
	}
	return text
}

// decodeRow reads a row that encodeRow wrote.
func decodeRow(text string) (packedRow, error) {
	lines := strings.Split(text, "\n")
	head, template, hasTemplate := strings.Cut(lines[0], " | ")
	words := strings.Split(head, " ")
	if len(words) != 5 {
		return packedRow{}, fmt.Errorf("packed row %q: want 5 words before the template, have %d", text, len(words))
	}
	line, err := strconv.Atoi(words[4])
	if err != nil {
		return packedRow{}, fmt.Errorf("packed row %q: line %q is not a number", text, words[4])
	}
	r := packedRow{Operation: words[0], Land: words[1], Gate: words[2], Capability: words[3], Line: line}
	if hasTemplate {
		r.Template = template
	}
	if len(lines) > 1 {
		r.Format, r.Names = lines[1], lines[2:]
	}
	return r, nil
}

// encodePosition is a grant's position in one number, file << 32 | line,
// so that the first grant is the smallest position (rego/library/grants.rego).
func encodePosition(file, line int) int64 { return int64(file)<<32 | int64(line) }

// decodePosition is the file (in the order given) and line of a position.
func decodePosition(p int64) (file, line int) { return int(p >> 32), int(p & (1<<32 - 1)) }
