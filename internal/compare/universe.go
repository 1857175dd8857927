package compare

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/compile"
)

// A subject's type, for one key and one tenant class, is four bits: whether
// a principal:/role: grant of each version that applies to a principal
// holding it exists anywhere (named), and whether one gives the key's
// capability (covers). Covers implies named. A principal's own bits are
// the OR of its id's and its roles' types: everything the decision reads
// of its identity (docs/decisions.md: capability, item 4).
const (
	namedOld  uint8 = 1 << iota // some principal:/role: grant of OLD applies
	coversOld                   // one of them gives the key's capability in OLD
	namedNew
	coversNew
)

// An α-combo is a type's named bits alone, as two bits: 1 for OLD, 2 for
// NEW. alphaType and coverType spread such pairs into a type.
func alphaType(a uint8) uint8 { return a&1*namedOld | a>>1&1*namedNew }
func coverType(c uint8) uint8 { return c&1*coversOld | c>>1&1*coversNew }

// fullType is the type of a subject named as a says and covering as c
// says (c within a).
func fullType(a, c uint8) uint8 { return alphaType(a) | coverType(c) }

// kindOf indexes the two kinds of subjects: 0 for principal:ID, 1 for
// role:NAME.
func (u *universe) kindOf(s int32) int {
	if u.names.isRole(s) {
		return 1
	}
	return 0
}

// universe is what compare knows of both versions' grants before it looks
// at any key: every subject's α-combo without a tenant, the tenants that
// raise it (a tenanted grant that names it where no tenantless one does),
// and the tenants grouped by what their raises do.
type universe struct {
	names    *names
	old, new *side
	freeID   string           // an id no grant names
	base     []uint8          // per subject: its α-combo from tenantless holders
	raised   map[holder]uint8 // (subject, tenant) → its α-combo there, where it differs from base
	tenants  []tenantInfo     // per tenant
	groups   []*group
	// partialBit numbers the subjects that some tenant raises and some
	// tenantless grant names (a group's partial raises), for the groups'
	// masks.
	partialBit map[int32]int
	// alpha lists, per kind and α-combo (1 to 3), the subjects whose base
	// combo it is, in the order interned.
	alpha [2][4][]int32
}

// tenantInfo is what a tenant's grants change about who is named.
type tenantInfo struct {
	raised []int32     // the subjects it raises, in order
	from   [2][4]int32 // per kind and base α-combo: how many it raises from there
	to     [2][4]int32 // per kind and α-combo: how many it raises to there
	group  int         // index in universe.groups
}

// group holds the tenants whose raises are alike: the same subjects named
// without a tenant in some version (partial raises), raised to the same
// α-combos, and raises of subjects no tenantless grant names to the same
// α-combos (full raises; those subjects cover no key for a tenant that
// has no grant of its own there). For a key that none of its tenants has
// a grant or a default for, each member decides as the others do (see
// profile.go).
type group struct {
	partial  map[int32]uint8 // subject → the α-combo it is raised to
	from     [2][4]int32     // the partial raises, by kind and base α-combo
	toPartly [2][4]int32     // the partial raises, by kind and raised α-combo
	toFully  [2][4]bool      // whether a full raise reaches each α-combo
	members  []int32
	// mask has the bit (universe.partialBit) of each subject of partial:
	// a key none of whose tenantless covering subjects it has leaves the
	// group's profile the tenant-less one with the counts above moved.
	mask []uint64
}

// newUniverse indexes both versions' grants.
func newUniverse(oldGrants, newGrants []*compile.Grant) *universe {
	n := newNames()
	u := &universe{names: n, old: newSide(n, oldGrants), new: newSide(n, newGrants), raised: map[holder]uint8{}}
	u.base = make([]uint8, len(n.subjectsOf))
	u.tenants = make([]tenantInfo, len(n.tenantsOf))
	tenanted := map[holder]uint8{}
	for bit, s := range []*side{u.old, u.new} {
		for h := range s.named {
			if h.tenant == noTenant {
				u.base[h.subject] |= 1 << bit
			} else {
				tenanted[h] |= 1 << bit
			}
		}
	}
	for h, bits := range tenanted {
		if a := u.base[h.subject] | bits; a != u.base[h.subject] {
			u.raised[h] = a
		}
	}
	u.freeID = freeIDOf(n)
	u.indexRaises()
	u.groupTenants()
	for s, a := range u.base {
		if a != 0 {
			k := u.kindOf(int32(s))
			u.alpha[k][a] = append(u.alpha[k][a], int32(s))
		}
	}
	return u
}

// indexRaises fills each tenant's raised, from and to, in an order that
// does not depend on map iteration.
func (u *universe) indexRaises() {
	for h, a := range u.raised {
		ti := &u.tenants[h.tenant]
		ti.raised = append(ti.raised, h.subject)
		k := u.kindOf(h.subject)
		ti.from[k][u.base[h.subject]]++
		ti.to[k][a]++
	}
	for t := range u.tenants {
		slices.Sort(u.tenants[t].raised)
	}
}

// groupTenants groups the tenants by their raises, noTenant's group
// (nothing raised) first.
func (u *universe) groupTenants() {
	index := map[string]int{}
	for t := range u.tenants {
		ti := &u.tenants[t]
		g := &group{partial: map[int32]uint8{}}
		var key strings.Builder
		for _, subj := range ti.raised {
			k, a := u.kindOf(subj), u.raised[holder{subj, int32(t)}]
			if b := u.base[subj]; b != 0 {
				g.partial[subj] = a
				g.from[k][b]++
				g.toPartly[k][a]++
				fmt.Fprintf(&key, "%d:%d ", subj, a)
			} else {
				g.toFully[k][a] = true
			}
		}
		fmt.Fprintf(&key, "%v", g.toFully)
		i, ok := index[key.String()]
		if !ok {
			i = len(u.groups)
			index[key.String()] = i
			u.groups = append(u.groups, g)
		}
		ti.group = i
		u.groups[i].members = append(u.groups[i].members, int32(t))
	}
	u.partialBit = map[int32]int{}
	for _, g := range u.groups {
		for _, subj := range slices.Sorted(maps.Keys(g.partial)) {
			if _, ok := u.partialBit[subj]; !ok {
				u.partialBit[subj] = len(u.partialBit)
			}
		}
	}
	for _, g := range u.groups {
		g.mask = make([]uint64, (len(u.partialBit)+63)/64)
		for subj := range g.partial {
			b := u.partialBit[subj]
			g.mask[b/64] |= 1 << (b % 64)
		}
	}
}

// alphaOf is subject s's α-combo under tenant t.
func (u *universe) alphaOf(s, t int32) uint8 {
	if t != noTenant {
		if a, ok := u.raised[holder{s, t}]; ok {
			return a
		}
	}
	return u.base[s]
}

// freeIDOf is an id that no principal: grant of either version names:
// the id of the examples' principals whose id type is 0.
func freeIDOf(n *names) string {
	id := "hcp-rego-compare"
	for i := 2; ; i++ {
		if _, named := n.subjects["principal:"+id]; !named {
			return id
		}
		id = fmt.Sprintf("hcp-rego-compare-%d", i)
	}
}
