package replay

import (
	"encoding/json"
	"fmt"
	"github.com/hcp-rego/hcp-rego/internal/columns"
	"io"
	"strconv"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/markdown"
	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// LastLine is the report's summary, the last line of the pretty and
// markdown formats: "N replayed: N unchanged, N narrowed, N widened, N
// changed; N skipped".
func (r *Report) LastLine() string {
	return fmt.Sprintf("%d replayed: %d unchanged, %d narrowed, %d widened, %d changed; %d skipped",
		r.Replayed, r.Unchanged, r.Narrowed, r.Widened, r.Changed, r.Skipped.Total())
}

// notes are the lines between the table and the last line: the skipped
// events by reason, a capped cache and groups left unlisted.
func (r *Report) notes() []string {
	var out []string
	if s := r.Skipped; s.Total() > 0 {
		out = append(out, fmt.Sprintf("skipped: %d other_path, %d error, %d masked, %d unreadable",
			s.OtherPath, s.Error, s.Masked, s.Unreadable))
	}
	if r.CacheCapped > 0 {
		out = append(out, fmt.Sprintf("note: more than %d distinct inputs; beyond that many the cache of decisions was full and some inputs were decided more than once", r.CacheCapped))
	}
	if r.GroupsCapped > 0 {
		out = append(out, r.GroupsNote())
	}
	return out
}

// GroupsNote says that the report lists only some groups, and how many
// changed decisions the others hold.
func (r *Report) GroupsNote() string {
	return fmt.Sprintf("note: more than %d groups; the table lists %d, widened first, and %d changed decisions are in groups it does not list (the counts below hold them all)", r.GroupsCapped, len(r.Groups), r.Unlisted())
}

var tableHeader = []string{"CHANGE", "COUNT", "PACK", "KIND", "KEY", "FROM", "TO", "EXAMPLE"}

// cells is a group's row of the table.
func (g Group) cells() []string {
	return []string{string(g.Change), strconv.FormatInt(g.Count, 10), g.PackID, g.Kind, g.Key, g.From, g.To, g.Example}
}

// WritePretty writes the groups as a table aligned for a terminal, then
// the notes and the last line. With no group there is no table.
func WritePretty(w io.Writer, r *Report) error {
	var b strings.Builder
	if len(r.Groups) > 0 {
		lines := [][]string{tableHeader}
		for _, g := range r.Groups {
			line := g.cells()
			for i := range line {
				line[i] = printable.Quote(line[i])
			}
			lines = append(lines, line)
		}
		columns.Write(&b, lines)
		b.WriteByte('\n')
	}
	for _, n := range r.notes() {
		b.WriteString(n + "\n")
	}
	b.WriteString(r.LastLine() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report for a pull request comment: a title,
// the table of groups (packs, keys, codes and examples as code spans),
// the notes and the last line.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	b.WriteString("**hcp-rego replay**\n\n")
	if len(r.Groups) > 0 {
		header := make([]string, len(tableHeader))
		for i, h := range tableHeader {
			header[i] = strings.ToLower(h)
		}
		mdRow(&b, header)
		mdRow(&b, []string{"---", "---:", "---", "---", "---", "---", "---", "---"})
		for _, g := range r.Groups {
			c := g.cells()
			for _, i := range []int{2, 4, 5, 6, 7} {
				c[i] = markdown.Code(c[i])
			}
			mdRow(&b, c)
		}
		b.WriteByte('\n')
	}
	for _, n := range r.notes() {
		b.WriteString(n + "\n\n")
	}
	b.WriteString(r.LastLine() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func mdRow(b *strings.Builder, cells []string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// jsonReport is the json format's shape, exactly as docs/replay.md gives
// it.
type jsonReport struct {
	Replayed  int64       `json:"replayed"`
	Unchanged int64       `json:"unchanged"`
	Narrowed  int64       `json:"narrowed"`
	Widened   int64       `json:"widened"`
	Changed   int64       `json:"changed"`
	Skipped   jsonSkipped `json:"skipped"`
	Groups    []jsonGroup `json:"groups"`
}

type jsonSkipped struct {
	OtherPath  int64 `json:"other_path"`
	Error      int64 `json:"error"`
	Masked     int64 `json:"masked"`
	Unreadable int64 `json:"unreadable"`
}

type jsonGroup struct {
	PackID  string `json:"pack_id"`
	Kind    string `json:"kind"`
	Key     string `json:"key"`
	From    string `json:"from"`
	To      string `json:"to"`
	Change  Change `json:"change"`
	Count   int64  `json:"count"`
	Example string `json:"example"`
}

// WriteJSON writes the report as one JSON object, the shape of
// docs/replay.md.
func WriteJSON(w io.Writer, r *Report) error {
	out := jsonReport{
		Replayed: r.Replayed, Unchanged: r.Unchanged, Narrowed: r.Narrowed, Widened: r.Widened, Changed: r.Changed,
		Skipped: jsonSkipped{OtherPath: r.Skipped.OtherPath, Error: r.Skipped.Error, Masked: r.Skipped.Masked, Unreadable: r.Skipped.Unreadable},
		Groups:  make([]jsonGroup, len(r.Groups)),
	}
	for i, g := range r.Groups {
		out.Groups[i] = jsonGroup{PackID: g.PackID, Kind: g.Kind, Key: g.Key, From: g.From, To: g.To, Change: g.Change, Count: g.Count, Example: g.Example}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
