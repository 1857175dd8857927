package compile

import (
	"encoding/hex"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/schema"
)

// loadGrants reads and validates one grant file and returns its grants,
// numbered from 1 in the file (Load gives them their place in the run),
// and the file's sha256.
//
// The file is read as a stream, grant by grant (document.ReadJSONStream):
// each grant is checked against the grant schema as it comes
// (schema.Items) and kept as a Grant, which holds what lint names of it
// but no parse tree. A million grants read whole were 129 MB of text and
// a tree of seven million values, most of a large build's memory.
//
// With sp, each grant with a tenant goes to sp as it comes, and only the
// others are returned: the file is given at index file.
func loadGrants(path string, budget *document.Budget, sp *spill, file int) ([]*Grant, string, error) {
	if !utf8.ValidString(path) {
		return nil, "", errNotUTF8(path)
	}
	r := newGrantReader(path)
	r.spill, r.file = sp, file
	root, sum, err := document.ReadJSONStream(path, budget, "grants", r)
	if err != nil {
		return nil, "", err
	}
	if err := r.check.Validate(root); err != nil {
		return nil, "", err
	}
	return r.grants, hex.EncodeToString(sum[:]), nil
}

// errNotUTF8 refuses a path that is not UTF-8: a decision names the
// policy and grant files as text (source.row, source.grant), which
// cannot spell it.
func errNotUTF8(path string) error {
	return &problem.Error{File: printable.Quote(path), Msg: "the path is not valid UTF-8: decisions and bundles name pack and grant files as text, which cannot spell it"}
}

// grantReader takes a grant file's grants as they are parsed: it checks
// each against the schema, and keeps it while the file has no problem
// (a file with one gives no grant).
type grantReader struct {
	path   string
	check  *schema.Items
	grants []*Grant
	bad    bool
	// names holds one copy of each name read that grants repeat (pack
	// ids, keys, tenants, roles, capabilities); a principal's id is
	// mostly its own.
	names map[string]string
	// lists holds one copy of each list of capabilities, by its names
	// one a line.
	lists map[string][]string
	// spill, when set, takes each grant with a tenant, of the file
	// given at index file.
	spill *spill
	file  int
}

func newGrantReader(path string) *grantReader {
	return &grantReader{path: path, check: schema.Get("grants").Items(path, "grants"), names: map[string]string{}, lists: map[string][]string{}}
}

// Item checks grant i and keeps it.
func (r *grantReader) Item(i int, n *document.Node) {
	if !r.check.Check(i, n) {
		r.bad, r.grants, r.names, r.lists = true, nil, nil, nil
	}
	if r.bad {
		return
	}
	g := r.grant(i, n)
	if r.spill != nil && g.Tenant != "" {
		r.spill.put(r.file, g)
		return
	}
	r.grants = append(r.grants, g)
}

// Restart forgets every grant: the file is read again.
func (r *grantReader) Restart() {
	sp, file := r.spill, r.file
	*r = *newGrantReader(r.path)
	r.spill, r.file = sp, file
	if sp != nil {
		sp.restart(file)
	}
}

// grant is the Grant of n, grant i of the file, a valid grant.
func (r *grantReader) grant(i int, n *document.Node) *Grant {
	g := &Grant{
		File:     r.path,
		N:        i + 1,
		Line:     n.Pos.Line,
		Subject:  r.subject(n.Field("subject").Text),
		Tenant:   r.name(n.Field("tenant").Str()),
		PackID:   r.name(n.Field("pack_id").Text),
		VerbKey:  r.name(n.Field("verb_key").Str()),
		Stimulus: r.name(n.Field("stimulus").Str()),
		places:   grantPlaces{pack: placeOf(n.Field("pack_id").Pos)},
	}
	for _, scope := range []string{"verb_key", "stimulus"} {
		if f := n.Field(scope); f != nil {
			g.places.scope = placeOf(f.Pos)
		}
	}
	caps := n.Field("capabilities").Members()
	g.Capabilities = r.capabilities(caps)
	// Lint names a capability only where its scope refuses it: the
	// places of the others are not kept.
	if slices.ContainsFunc(g.Capabilities, g.misfits) {
		places := make([]problem.Pos, len(caps))
		for j, c := range caps {
			places[j] = c.Pos
		}
		g.places.capabilities = &places
	}
	return g
}

// capabilities returns the one copy of a grant's list of capabilities:
// grants hold a few lists between them. It is full (its capacity its
// length), so that an append to it copies it.
func (r *grantReader) capabilities(caps []*document.Node) []string {
	key := caps[0].Text // a valid grant has one at least
	if len(caps) > 1 {
		var b strings.Builder
		for _, c := range caps {
			b.WriteString(c.Text)
			b.WriteByte('\n') // a capability is one of four names
		}
		key = b.String()
	}
	if kept, ok := r.lists[key]; ok {
		return kept
	}
	list := make([]string, len(caps))
	for j, c := range caps {
		list[j] = r.name(c.Text)
	}
	r.lists[key] = list
	return list
}

// subject returns the one copy of a role's or default's subject, and a
// principal's as it is.
func (r *grantReader) subject(s string) string {
	if strings.HasPrefix(s, "principal:") {
		return s
	}
	return r.name(s)
}

// name returns the one copy of s.
func (r *grantReader) name(s string) string {
	if s == "" {
		return ""
	}
	if kept, ok := r.names[s]; ok {
		return kept
	}
	r.names[s] = s
	return s
}
