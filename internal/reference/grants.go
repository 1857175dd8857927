package reference

import "github.com/hcp-rego/hcp-rego/compile"

// holder is who a grant is for: its subject and its tenant ("" when the
// grant holds for every tenant).
type holder struct {
	subject string
	tenant  string
}

// scope is what a grant covers in its pack: the whole pack, one command,
// or one trigger.
type scope struct {
	kind    compile.Kind
	key     string
	wholeOf bool // true for a pack-wide grant
}

// grantKey is one cell of the grant index.
type grantKey struct {
	holder     holder
	pack       string
	scope      scope
	capability string
}

// grantIndex answers, with map lookups alone, which grant first gives a
// capability for a call (docs/decisions.md: capability,
// items 3 and 4).
type grantIndex struct {
	// cells maps each cell to the grant of lowest position that fills it.
	cells map[grantKey]*compile.Grant
	// named holds every principal:/role: holder of any grant, in any pack:
	// a principal matched by one of them gets no default grant.
	named map[holder]bool
}

// indexGrants builds the index over all grants, in the order given.
func indexGrants(grants []*compile.Grant) *grantIndex {
	idx := &grantIndex{cells: map[grantKey]*compile.Grant{}, named: map[holder]bool{}}
	for _, g := range grants {
		h := holder{subject: g.Subject, tenant: g.Tenant}
		if g.Subject != "default" {
			idx.named[h] = true
		}
		for _, capability := range g.Capabilities {
			k := grantKey{holder: h, pack: g.PackID, scope: scopeOf(g), capability: capability}
			if prev, ok := idx.cells[k]; !ok || g.Index < prev.Index {
				idx.cells[k] = g
			}
		}
	}
	return idx
}

// scopeOf is the scope a grant names.
func scopeOf(g *compile.Grant) scope {
	switch {
	case g.VerbKey != "":
		return scope{kind: compile.Verb, key: g.VerbKey}
	case g.Stimulus != "":
		return scope{kind: compile.Stimulus, key: g.Stimulus}
	}
	return scope{wholeOf: true}
}

// first returns the grant of lowest position that gives capability to the
// call's principal for the call's pack and key, or nil when none does.
func (idx *grantIndex) first(c *call, capability string) *compile.Grant {
	hs := holdersOf(c.principal, namedSubjects(c.principal))
	if !idx.anyNamed(hs) {
		hs = holdersOf(c.principal, []string{"default"})
	}
	var best *compile.Grant
	scopes := []scope{{wholeOf: true}, {kind: c.kind, key: c.key}}
	for _, h := range hs {
		for _, s := range scopes {
			g := idx.cells[grantKey{holder: h, pack: c.packID, scope: s, capability: capability}]
			if g != nil && (best == nil || g.Index < best.Index) {
				best = g
			}
		}
	}
	return best
}

// anyNamed reports whether some principal:/role: grant applies to one of
// the holders.
func (idx *grantIndex) anyNamed(hs []holder) bool {
	for _, h := range hs {
		if idx.named[h] {
			return true
		}
	}
	return false
}

// holdersOf lists the holders a grant may name to apply to p: each subject,
// for every tenant and for p's tenant.
func holdersOf(p principal, subjects []string) []holder {
	tenants := []string{""}
	if p.tenant.given && p.tenant.value != "" {
		tenants = append(tenants, p.tenant.value)
	}
	hs := make([]holder, 0, len(subjects)*len(tenants))
	for _, s := range subjects {
		for _, t := range tenants {
			hs = append(hs, holder{subject: s, tenant: t})
		}
	}
	return hs
}

// namedSubjects are the principal:/role: subjects that name p.
func namedSubjects(p principal) []string {
	subjects := []string{"principal:" + p.id}
	for _, r := range p.roles {
		subjects = append(subjects, "role:"+r)
	}
	return subjects
}
