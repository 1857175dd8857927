package compare

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/hcp-rego/hcp-rego/internal/columns"
	"io"
	"strings"
	"unicode"

	"github.com/hcp-rego/hcp-rego/internal/markdown"
	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// LastLine is the report's summary, the last line of the pretty and
// markdown formats: "N keys: N same, N narrower, N wider, N mixed, N
// added, N removed".
func (r *Report) LastLine() string {
	c := r.Counts
	return fmt.Sprintf("%d keys: %d same, %d narrower, %d wider, %d mixed, %d added, %d removed",
		c.Keys, c.Same, c.Narrower, c.Wider, c.Mixed, c.Added, c.Removed)
}

var tableHeader = []string{"VERDICT", "PACK", "KIND", "KEY", "OLD", "NEW", "CALL"}

// Shown is the example a table row shows: the wider one when there is
// one, else the narrower one; nil for an added or removed key that no
// principal may call.
func (f Finding) Shown() *Example {
	if f.Wider != nil {
		return f.Wider
	}
	return f.Narrower
}

// cells is a finding's row of the table, each name as written (quote
// them for the format).
func (f Finding) cells() []string {
	ex := f.Shown()
	if ex == nil {
		return []string{string(f.Verdict), f.Pack, f.Kind.String(), f.Key.Key, "-", "-", "no principal may call it"}
	}
	return []string{string(f.Verdict), f.Pack, f.Kind.String(), f.Key.Key, ex.Old.Code, ex.New.Code, ""}
}

// callWords describes an example's call in words, each name passed
// through quote: its principal, then only what sets it apart from a
// plain call (mode run, confirm, a land fact that fails) and whether a
// runtime layer masks it.
func callWords(ex *Example, quote func(string) string) string {
	c := ex.Call
	words := []string{"id " + quote(c.ID)}
	if c.Tenant != "" {
		words = append(words, "tenant "+quote(c.Tenant))
	}
	if len(c.Roles) > 0 {
		roles := make([]string, len(c.Roles))
		for i, r := range c.Roles {
			roles[i] = quote(r)
		}
		words = append(words, "roles "+strings.Join(roles, " "))
	}
	if c.Approval == approveRun {
		words = append(words, "mode run")
	}
	if c.Confirm() {
		words = append(words, "confirm")
	}
	for _, land := range []struct{ name, fails string }{{"personal", "owner another"}, {"brain", "project not its"}, {"local", "path outside"}} {
		if !c.LandHolds(land.name) {
			words = append(words, land.fails)
		}
	}
	if ex.Masked {
		words = append(words, "masked by the runtime layer")
	}
	return strings.Join(words, ", ")
}

// WritePretty writes the findings as a table aligned for a terminal,
// then the last line. With no finding there is no table.
func WritePretty(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	if len(r.Findings) > 0 {
		lines := [][]string{tableHeader}
		for _, f := range r.Findings {
			line := f.cells()
			for i := range line {
				line[i] = printable.Quote(line[i])
			}
			if ex := f.Shown(); ex != nil {
				line[6] = callWords(ex, printable.Quote)
			}
			lines = append(lines, line)
		}
		columns.Write(bw, lines)
		bw.WriteByte('\n')
	}
	bw.WriteString(r.LastLine() + "\n")
	return bw.Flush()
}

// WriteMarkdown writes the report for a pull request comment: a title,
// the table (names and codes as code spans), each example's complete
// input in a collapsed section, and the last line.
func WriteMarkdown(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("**hcp-rego compare**\n\n")
	if len(r.Findings) > 0 {
		mdRow(bw, []string{"verdict", "pack", "kind", "key", "old", "new", "call"})
		mdRow(bw, []string{"---", "---", "---", "---", "---", "---", "---"})
		for _, f := range r.Findings {
			c := f.cells()
			for _, i := range []int{1, 3, 4, 5} {
				if c[i] != "-" {
					c[i] = markdown.Code(c[i])
				}
			}
			if ex := f.Shown(); ex != nil {
				c[6] = callWords(ex, markdown.Code)
			}
			mdRow(bw, c)
		}
		bw.WriteString("\n")
		if err := writeInputs(bw, r); err != nil {
			return err
		}
	}
	bw.WriteString(r.LastLine() + "\n")
	return bw.Flush()
}

// writeInputs writes each example's input as one line of JSON in a
// collapsed section, for `hcp-rego eval --input` on either version.
func writeInputs(w *bufio.Writer, r *Report) error {
	w.WriteString("<details><summary>Example inputs (<code>hcp-rego eval</code> on either version reproduces each decision)</summary>\n\n")
	for _, f := range r.Findings {
		for _, ex := range []*Example{f.Wider, f.Narrower} {
			if ex == nil {
				continue
			}
			way := "wider"
			if ex == f.Narrower {
				way = "narrower"
			}
			text, err := printableJSON(ex.Call.Document())
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s %s %s, %s:\n\n```json\n%s\n```\n\n", markdown.Code(f.Pack), f.Kind, markdown.Code(f.Key.Key), way, text)
		}
	}
	w.WriteString("</details>\n\n")
	return nil
}

func mdRow(w *bufio.Writer, cells []string) {
	w.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// printableJSON is v as compact JSON with every rune that is not
// printable written as a \u escape: the same JSON value, which no name
// can make break a line or reach a terminal raw.
func printableJSON(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	text := strings.TrimSuffix(b.String(), "\n")
	var out strings.Builder
	for _, r := range text {
		if unicode.IsPrint(r) || r == ' ' {
			out.WriteRune(r)
			continue
		}
		for _, u := range utf16Units(r) {
			fmt.Fprintf(&out, `\u%04x`, u)
		}
	}
	return out.String(), nil
}

// utf16Units are r's UTF-16 code units, as a JSON \u escape spells it.
func utf16Units(r rune) []rune {
	if r < 0x10000 {
		return []rune{r}
	}
	r -= 0x10000
	return []rune{0xd800 + r>>10, 0xdc00 + r&0x3ff}
}

// jsonExample is an example in the json format.
type jsonExample struct {
	Input  InputDocument `json:"input"`
	Old    jsonDecision  `json:"old"`
	New    jsonDecision  `json:"new"`
	Masked bool          `json:"masked,omitempty"`
}

type jsonDecision struct {
	Allow bool   `json:"allow"`
	Code  string `json:"code"`
	Row   string `json:"row,omitempty"`
	Grant string `json:"grant,omitempty"`
}

type jsonKey struct {
	PackID   string       `json:"pack_id"`
	Kind     string       `json:"kind"`
	Key      string       `json:"key"`
	Verdict  Verdict      `json:"verdict"`
	Wider    *jsonExample `json:"wider,omitempty"`
	Narrower *jsonExample `json:"narrower,omitempty"`
}

type jsonCounts struct {
	Keys     int `json:"keys"`
	Same     int `json:"same"`
	Narrower int `json:"narrower"`
	Wider    int `json:"wider"`
	Mixed    int `json:"mixed"`
	Added    int `json:"added"`
	Removed  int `json:"removed"`
}

func toJSON(ex *Example) *jsonExample {
	if ex == nil {
		return nil
	}
	return &jsonExample{Input: ex.Call.Document(), Old: jsonDecision(ex.Old), New: jsonDecision(ex.New), Masked: ex.Masked}
}

// WriteJSON writes the report as one JSON object, the shape of
// docs/compare.md: {"keys": [...], "counts": {...}}, keys holding every
// key that is not the same. It writes a key at a time, so that the inputs
// of a large report are never all held at once.
func WriteJSON(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("{\n  \"keys\": [")
	for i, f := range r.Findings {
		if i > 0 {
			bw.WriteString(",")
		}
		entry := jsonKey{PackID: f.Pack, Kind: f.Kind.String(), Key: f.Key.Key, Verdict: f.Verdict,
			Wider: toJSON(f.Wider), Narrower: toJSON(f.Narrower)}
		bw.WriteString("\n    ")
		if err := writeIndented(bw, "    ", entry); err != nil {
			return err
		}
	}
	if len(r.Findings) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n  \"counts\": ")
	if err := writeIndented(bw, "  ", jsonCounts(r.Counts)); err != nil {
		return err
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// writeIndented writes v as JSON where the writer stands, its later lines
// indented by indent and two spaces a level.
func writeIndented(w *bufio.Writer, indent string, v any) error {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	w.WriteString(strings.TrimSuffix(b.String(), "\n"))
	return nil
}
