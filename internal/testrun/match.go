package testrun

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/decimal"
)

// Mismatch is one field where a decision differs from a case's want.
type Mismatch struct {
	Path   string // where, as "preview.cli" or `preview.args["to"]`
	Want   any    // nil: the field must be absent
	Got    any
	Absent bool // the decision has no such field
}

// String renders the mismatch as `code: want "allowed", got "land_denied"`.
func (m Mismatch) String() string {
	want, got := "absent", "absent"
	if m.Want != nil {
		want = compact(m.Want)
	}
	if !m.Absent {
		got = compact(m.Got)
	}
	return fmt.Sprintf("%s: want %s, got %s", m.Path, want, got)
}

// Diff compares a decision document with a case's want, a subset of it:
// objects match member by member (a member the want leaves out may hold
// anything), arrays match exactly (same length, equal elements in order),
// numbers by value, and a want member that is null must be absent. It
// returns every mismatch, in path order; none means the case passes.
func Diff(want, got map[string]any) []Mismatch {
	var out []Mismatch
	diffObject("", want, got, &out)
	return out
}

func diffObject(prefix string, want, got map[string]any, out *[]Mismatch) {
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		w, path := want[k], joinPath(prefix, k)
		g, present := got[k]
		switch {
		case w == nil:
			if present && g != nil {
				*out = append(*out, Mismatch{Path: path, Got: g})
			}
		case !present:
			*out = append(*out, Mismatch{Path: path, Want: w, Absent: true})
		default:
			wm, wantObject := w.(map[string]any)
			gm, gotObject := g.(map[string]any)
			if wantObject && gotObject {
				diffObject(path, wm, gm, out)
			} else if !decimal.Equal(w, g) {
				*out = append(*out, Mismatch{Path: path, Want: w, Got: g})
			}
		}
	}
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func joinPath(prefix, key string) string {
	switch {
	case !identifier.MatchString(key):
		return prefix + "[" + strconv.Quote(key) + "]"
	case prefix == "":
		return key
	}
	return prefix + "." + key
}

// compact renders a JSON value as compact JSON text, keys sorted, with no
// HTML escaping (a CLI template's "<" stays "<").
func compact(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
