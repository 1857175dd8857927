package compile

import "slices"

// grantTables builds data.hcp_grants, the lookup tables the decision
// library reads (rego/library/grants.rego), so that a decision costs the same for
// 1 grant or 100,000:
//
//	principal[id][pack]   a scope table (below) for principal:ID grants
//	role[name][pack]      the same for role:NAME grants
//	default[pack]         the same for default grants
//	applies[principal|role][subject][tenant]  true when some grant applies
//	files[n]              the grant files, in the order given
//
// A position is Grant.Position: file and line in one number. A scope table
// maps "c", then a capability, to the position of the first
// pack-wide grant of it; and "v" (commands) or "s" (triggers), then a key,
// to the position of the first grant on that command or trigger that gives
// its capability. Those entries hold grants without a tenant; "t", then a
// tenant, holds the scope of that tenant's principals: its grants and those
// without a tenant. The first grant for a call is the smallest position its
// subjects' scopes give. Keys are
// short because the tables are most of a large bundle.
func grantTables(m *Model) map[string]any {
	principal, role, deflt := groups{}, groups{}, map[string][]*Grant{}
	applies := map[string]map[string]map[string]any{"principal": {}, "role": {}}
	files := make([]any, len(m.grantFiles))
	for i, f := range m.grantFiles {
		files[i] = f
	}
	for _, g := range m.grants {
		kind, name, named := splitSubject(g.Subject)
		switch {
		case !named:
			deflt[g.PackID] = append(deflt[g.PackID], g)
		case kind == "principal":
			principal.add(name, g)
		default:
			role.add(name, g)
		}
		if named {
			if applies[kind][name] == nil {
				applies[kind][name] = map[string]any{}
			}
			applies[kind][name][g.Tenant] = true
		}
	}
	defaults := map[string]any{}
	for pack, grants := range deflt {
		defaults[pack] = subjectTable(m, grants)
	}
	return map[string]any{
		"principal": principal.tables(m),
		"role":      role.tables(m),
		"default":   defaults,
		"applies":   applies,
		"files":     files,
	}
}

// groups collects grants by subject name and pack.
type groups map[string]map[string][]*Grant

func (gs groups) add(name string, g *Grant) {
	if gs[name] == nil {
		gs[name] = map[string][]*Grant{}
	}
	gs[name][g.PackID] = append(gs[name][g.PackID], g)
}

func (gs groups) tables(m *Model) map[string]any {
	out := make(map[string]any, len(gs))
	for name, byPack := range gs {
		packs := make(map[string]any, len(byPack))
		for pack, grants := range byPack {
			packs[pack] = subjectTable(m, grants)
		}
		out[name] = packs
	}
	return out
}

// subjectTable builds one subject's scope table for one pack from its
// grants there, in order: the first grant of each kind and tenant. A
// tenant's scope (under "t") also holds the grants without a tenant, where
// they come first, so a call looks in one scope: its tenant's when there
// is one, the table itself otherwise.
func subjectTable(m *Model, grants []*Grant) map[string]any {
	table := map[string]any{}
	for _, g := range grants {
		scope := table
		if g.Tenant != "" {
			scope = child(child(table, "t"), g.Tenant)
		}
		for _, path := range slotsOf(m, g) {
			setFirst(scope, path, g.Position())
		}
	}
	tenants, _ := table["t"].(map[string]any)
	for _, scope := range tenants {
		for _, kind := range []string{"c", "v", "s"} {
			entries, _ := table[kind].(map[string]any)
			for name, pos := range entries {
				setFirst(scope.(map[string]any), [2]string{kind, name}, pos.(int64))
			}
		}
	}
	return table
}

// setFirst records pos under path in scope unless an earlier grant is
// there already.
func setFirst(scope map[string]any, path [2]string, pos int64) {
	entry := child(scope, path[0])
	if first, seen := entry[path[1]].(int64); !seen || pos < first {
		entry[path[1]] = pos
	}
}

// kindCode is the scope table key of a row kind.
var kindCode = map[Kind]string{Verb: "v", Stimulus: "s"}

// slotsOf lists where a grant goes in a scope table: under "c" for each
// capability of a pack-wide grant; under its row's key when it gives that
// row's capability (a grant of another capability there never counts).
func slotsOf(m *Model, g *Grant) [][2]string {
	r := scopedRow(m, g)
	if r != nil && slices.Contains(g.Capabilities, r.Capability()) {
		return [][2]string{{kindCode[r.Kind], r.Key}}
	}
	var slots [][2]string
	if g.VerbKey == "" && g.Stimulus == "" {
		for _, c := range g.Capabilities {
			slots = append(slots, [2]string{"c", c})
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

func child(m map[string]any, key string) map[string]any {
	c, ok := m[key].(map[string]any)
	if !ok {
		c = map[string]any{}
		m[key] = c
	}
	return c
}
