package compare

import (
	"strings"

	"github.com/hcp-rego/hcp-rego/compile"
)

// holder is who a grant is for, interned: its subject and its tenant
// (noTenant when the grant holds for every tenant).
type holder struct {
	subject int32
	tenant  int32
}

// noTenant is the tenant of a grant without one, and the tenant class of
// a principal whom no tenanted grant names (no tenant, or one no grant
// names: the two decide alike, since a tenanted grant applies only to its
// own tenant).
const noTenant int32 = 0

// cell is what a grant covers: a capability in a pack, pack-wide (key
// "") or for one command or trigger.
type cell struct {
	pack       string
	kind       compile.Kind
	key        string
	capability string
}

// side is one version's grants, reduced to what a decision reads of them
// (docs/decisions.md: capability, item 4): which holders are
// named by a principal:/role: grant anywhere (a principal matched by one
// gets no default grant), which holders fill each cell, and the tenants of
// the default grants that fill it. Positions are left out: they choose
// source.grant, never the disposition.
type side struct {
	named    map[holder]bool
	cover    map[cell][]holder
	defaults map[cell][]int32
}

// names interns the subjects and tenants of both versions, so that a
// holder is two integers and the two versions share the numbering.
type names struct {
	subjects   map[string]int32
	subjectsOf []string // "principal:ID" or "role:NAME"
	tenants    map[string]int32
	tenantsOf  []string // tenantsOf[noTenant] is ""
}

func newNames() *names {
	return &names{subjects: map[string]int32{}, tenants: map[string]int32{"": noTenant}, tenantsOf: []string{""}}
}

func (n *names) subject(s string) int32 { return intern(n.subjects, &n.subjectsOf, s) }

func (n *names) tenant(t string) int32 { return intern(n.tenants, &n.tenantsOf, t) }

// intern is s's number in ids, given the next one (its place in of) when
// it has none.
func intern(ids map[string]int32, of *[]string, s string) int32 {
	if id, ok := ids[s]; ok {
		return id
	}
	id := int32(len(*of))
	ids[s] = id
	*of = append(*of, s)
	return id
}

// isRole reports whether subject s (interned) is a role:NAME subject; the
// others are principal:ID.
func (n *names) isRole(s int32) bool { return strings.HasPrefix(n.subjectsOf[s], "role:") }

// newSide indexes one version's grants.
func newSide(n *names, grants []*compile.Grant) *side {
	s := &side{named: map[holder]bool{}, cover: map[cell][]holder{}, defaults: map[cell][]int32{}}
	for _, g := range grants {
		tenant := n.tenant(g.Tenant)
		scope := cell{pack: g.PackID}
		switch {
		case g.VerbKey != "":
			scope.kind, scope.key = compile.Verb, g.VerbKey
		case g.Stimulus != "":
			scope.kind, scope.key = compile.Stimulus, g.Stimulus
		}
		if g.Subject == "default" {
			for _, c := range g.Capabilities {
				scope.capability = c
				s.defaults[scope] = append(s.defaults[scope], tenant)
			}
			continue
		}
		h := holder{subject: n.subject(g.Subject), tenant: tenant}
		s.named[h] = true
		for _, c := range g.Capabilities {
			scope.capability = c
			s.cover[scope] = append(s.cover[scope], h)
		}
	}
	return s
}

// covering returns the holders of the grants that give capability for a
// call of kind and key in pack: pack-wide and for that key. It may repeat
// a holder. An empty capability (the version has no such row) gives none.
func (s *side) covering(k Key, capability string) (pack, own []holder) {
	if capability == "" {
		return nil, nil
	}
	return s.cover[cell{pack: k.Pack, capability: capability}],
		s.cover[cell{pack: k.Pack, kind: k.Kind, key: k.Key, capability: capability}]
}

// defaultTenants returns the tenants of the default grants that give
// capability for the key, pack-wide or for the key (noTenant for a
// default grant without a tenant).
func (s *side) defaultTenants(k Key, capability string) (pack, own []int32) {
	if capability == "" {
		return nil, nil
	}
	return s.defaults[cell{pack: k.Pack, capability: capability}],
		s.defaults[cell{pack: k.Pack, kind: k.Kind, key: k.Key, capability: capability}]
}
