package compile

import (
	"encoding/json"
	"slices"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// grantTables builds data.hcp_grants, the lookup tables the decision
// library reads (rego/library/grants.rego), so that a decision costs the
// same for 1 grant or 1,000,000: base holds the tables of every grant,
// the grant files in the order given (files), and the list of sources
// (bundles.SourcesKey). A sharded build's base (shards > 0) holds the
// tables of the grants without a tenant only, and the number of shards
// that hold the rest (shardTables).
func grantTables(m *Model, shards int) map[string]any {
	var base map[string]any
	if shards == 0 {
		base = tablesOf(m, m.grants, hasDefaults(m.grants))
	} else {
		// applies is always there: a shard's default grant reads it for
		// the grants without a tenant too, and the policy bundle must not
		// change with one tenant's grants (docs/fleet.md).
		base = tablesOf(m, tenantless(m.grants), true)
		base["shards"] = shards
		base["shard_of"] = shardOfTable(shards)
	}
	base["files"] = grantFiles(m)
	base[bundles.SourcesKey] = sourcesData(sourceDigests(m, shards))
	return map[string]any{bundles.BaseKey: base}
}

// tablesOf builds the tables of grants:
//
//	slots[pack][field][key][holder]  the position of the first grant of
//	                                 holder that fills the slot
//	roles[pack][subject]             true when the role has a grant in the pack
//	applies[tenant][subject]         true when a principal: or role: grant
//	                                 of that subject and tenant ("" for
//	                                 none) exists; only when defaults,
//	                                 when some default grant of the build
//	                                 makes it read
//
// A grant on one command or trigger that gives its row's capability fills
// the slot of its field (verb_key or stimulus) and key; a pack-wide grant
// fills field "capability", key each of its capabilities. Its holder is
// its subject as the grant file writes it ("principal:alice",
// "role:member", "default") when it has no tenant, and the JSON text of
// [subject, tenant] when it has one (holderKey). A position is
// Grant.Position: file and line in one number, so the first grant is the
// smallest.
//
// The few values above a slot are shared by all its grants, and each grant
// is one member of one object: a sidecar holds each object apart, and a
// grant nested five objects deep (subject, pack, tenant, field, key) took
// OPA some 2.2 KB, against about 0.3 KB here (docs/performance.md).
func tablesOf(m *Model, grants []*Grant, defaults bool) map[string]any {
	slots, roles, applies := map[string]any{}, map[string]any{}, map[string]any{}
	var fills [][2]string
	for _, g := range grants {
		holder := holderKey(g.Subject, g.Tenant)
		fills = appendSlots(fills[:0], m, g)
		for _, slot := range fills {
			setFirst(child(child(child(slots, g.PackID), slot[0]), slot[1]), holder, g.Position())
		}
		kind, _, named := splitSubject(g.Subject)
		if named && defaults {
			child(applies, g.Tenant)[g.Subject] = true
		}
		if kind == "role" {
			child(roles, g.PackID)[g.Subject] = true
		}
	}
	tables := map[string]any{"slots": slots, "roles": roles}
	if defaults {
		tables["applies"] = applies
	}
	return tables
}

// hasDefaults reports whether some grant is a default grant: only then is
// applies read (a million named grants need not fill it).
func hasDefaults(grants []*Grant) bool {
	return slices.ContainsFunc(grants, func(g *Grant) bool {
		_, _, named := splitSubject(g.Subject)
		return !named
	})
}

// grantFiles are the grant files in the order given, as data.
func grantFiles(m *Model) []any {
	files := make([]any, len(m.grantFiles))
	for i, f := range m.grantFiles {
		files[i] = f
	}
	return files
}

// holderKey is where a slot holds a grant of subject and tenant: the
// subject as written, or, with a tenant, the JSON text of [subject,
// tenant], which OPA's json.marshal writes alike (a JSON array of strings,
// HTML characters escaped). The two never meet: a subject never starts
// with "[".
func holderKey(subject, tenant string) string {
	switch {
	case tenant == "":
		return subject
	case plainJSON(subject) && plainJSON(tenant):
		// What json.Marshal writes for these, without its allocations:
		// a million grants make a million keys.
		return `["` + subject + `","` + tenant + `"]`
	}
	text, _ := json.Marshal([]string{subject, tenant})
	return string(text)
}

// plainJSON reports whether json.Marshal writes s as it is between its
// quotes: printable ASCII but the quote, the backslash and the three
// characters it escapes for HTML.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// setFirst records pos under holder in slot unless an earlier grant is
// there already.
func setFirst(slot map[string]any, holder string, pos int64) {
	if first, seen := slot[holder].(int64); !seen || pos < first {
		slot[holder] = pos
	}
}

// child is m's object at key, made empty when m has none.
func child(m map[string]any, key string) map[string]any {
	c, ok := m[key].(map[string]any)
	if !ok {
		c = map[string]any{}
		m[key] = c
	}
	return c
}

// appendSlots appends to slots the field and key of each slot a grant
// fills: its row's kind field (verb_key or stimulus) and key when it
// gives that row's capability (a grant of another capability there never
// counts); for a pack-wide grant, "capability" and each of its
// capabilities.
func appendSlots(slots [][2]string, m *Model, g *Grant) [][2]string {
	r := scopedRow(m, g)
	if r != nil && slices.Contains(g.Capabilities, r.Capability()) {
		return append(slots, [2]string{r.Kind.Field(), r.Key})
	}
	if g.VerbKey == "" && g.Stimulus == "" {
		for _, c := range g.Capabilities {
			slots = append(slots, [2]string{"capability", c})
		}
	}
	return slots
}

// scopedRow is the row a grant on one command or trigger names.
func scopedRow(m *Model, g *Grant) *Row {
	p := m.Pack(g.PackID)
	switch {
	case p == nil:
		return nil
	case g.VerbKey != "":
		return p.Verbs[g.VerbKey]
	case g.Stimulus != "":
		return p.Stimuli[g.Stimulus]
	}
	return nil
}

// splitSubject splits "principal:ID" or "role:NAME"; named is false for
// "default".
func splitSubject(s string) (kind, name string, named bool) {
	for _, kind := range []string{"principal", "role"} {
		if len(s) > len(kind) && s[:len(kind)+1] == kind+":" {
			return kind, s[len(kind)+1:], true
		}
	}
	return "", "", false
}
