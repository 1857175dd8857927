package compare

import "slices"

// keyScan is what one key's grants make of the universe: which subjects
// cover the key in each version, without a tenant and for each tenant,
// and the tenants of its default grants. One worker reuses one keyScan
// for every key it analyses.
type keyScan struct {
	u *universe
	// noneCover maps each subject that a tenantless grant lets cover the
	// key to its cover bits (1 OLD, 2 NEW).
	noneCover map[int32]uint8
	// tenCover maps a tenant to the subjects its own grants let cover the
	// key, with their cover bits.
	tenCover map[int32]map[int32]uint8
	// defaults maps a tenant (noTenant too) to the versions (bits) whose
	// default grants for it give the key's capability.
	defaults map[int32]uint8
	relevant []int32 // tenants with a grant or a default of their own here, sorted
	// seen holds the profiles analysed for the key, as presence and
	// default bits: two that agree reach the same pairs.
	seen map[uint64]bool
	// coverMask has the partial bit of each tenantless covering subject;
	// noneKey is the tenant-less profile's key without its α-only bits.
	coverMask []uint64
	noneKey   uint64
	none      counts // the profile of a principal without a named tenant
	global    counts // subjects by base α-combo, before any key
	// analyses counts the profiles analysed, for the test that bounds
	// them.
	analyses int
}

func newKeyScan(u *universe) *keyScan {
	s := &keyScan{u: u, noneCover: map[int32]uint8{}, tenCover: map[int32]map[int32]uint8{},
		defaults: map[int32]uint8{}, seen: map[uint64]bool{}}
	for k := range 2 {
		for a := 1; a < 4; a++ {
			s.global[k][alphaType(uint8(a))] = int32(len(u.alpha[k][a]))
		}
	}
	return s
}

// pairs returns the pairs of (held under OLD, held under NEW) that some
// principal reaches for key k, whose capability is capOld in OLD and
// capNew in NEW ("" where the version has no such row). With collect set,
// it keeps other classes that reach each pair too.
//
// It analyses the profile without a tenant; for each group of tenants, a
// member without a grant or default of its own for the key, whose
// profile is the group's; and each tenant with one. Profiles that agree
// on which types are present and on the default grants reach the same
// pairs, and are analysed once: a key costs a few lookups a group, and
// analyses at most one profile a presence.
func (s *keyScan) pairs(k Key, capOld, capNew string, collect bool) pairs {
	s.scan(k, capOld, capNew)
	p := pairs{collect: collect}
	s.analyse(&s.none, noTenant, &p)
	for _, g := range s.u.groups {
		if p.complete() {
			return p
		}
		if s.seen[s.groupKey(g)] {
			continue
		}
		if t, ok := s.bystander(g); ok {
			c := s.groupCounts(g)
			s.analyse(&c, t, &p)
		}
	}
	for _, t := range s.relevant {
		if p.complete() {
			return p
		}
		c := s.tenantCounts(t)
		s.analyse(&c, t, &p)
	}
	return p
}

// analyse adds to p the pairs of a profile of tenant t, unless a profile
// that reaches the same ones was analysed for the key.
func (s *keyScan) analyse(c *counts, t int32, p *pairs) {
	key := profileKey(c, s.defaultBits(t))
	if s.seen[key] {
		return
	}
	s.seen[key] = true
	s.analyses++
	analyse(c, t, s.byDefault(t, 1), s.byDefault(t, 2), p)
}

// profileKey is what decides a profile's pairs: the types present among
// ids and among roles (type 0 always is), and the versions whose default
// grants give the capability.
func profileKey(c *counts, defaults uint8) uint64 {
	key := uint64(defaults)
	for kind := range 2 {
		for t := 1; t < 16; t++ {
			if c[kind][t] > 0 {
				key |= keyBit(kind, t)
			}
		}
	}
	return key
}

// keyBit is the bit of a profile key that says a type of a kind is
// present.
func keyBit(kind, t int) uint64 { return 1 << (2 + kind*16 + t) }

// groupCounts is the profile of a member of g that has no grant or
// default of its own for the key: the profile without a tenant, with the
// subjects g raises moved from their base α-combos to their raised ones
// (those that cover the key without a tenant keeping their cover), and
// one at least in each α-combo a full raise reaches (such a subject
// covers nothing here).
func (s *keyScan) groupCounts(g *group) counts {
	c := s.none
	for kind := range 2 {
		for a := 1; a < 4; a++ {
			c[kind][alphaType(uint8(a))] += g.toPartly[kind][a] - g.from[kind][a]
			if g.toFully[kind][a] {
				c[kind][alphaType(uint8(a))]++
			}
		}
	}
	s.eachCovering(g.partial, func(subj int32, aT uint8) {
		s.moveCovering(&c, subj, aT, s.noneCover[subj])
	})
	return c
}

// groupKey is the profile key of groupCounts(g), found without the
// profile where g raises no subject that covers the key: the α-only
// counts alone move, and a key has many such groups.
func (s *keyScan) groupKey(g *group) uint64 {
	for i, m := range g.mask {
		if m&s.coverMask[i] != 0 {
			c := s.groupCounts(g)
			return profileKey(&c, s.defaultBits(noTenant))
		}
	}
	key := s.noneKey
	for kind := range 2 {
		for a := 1; a < 4; a++ {
			t := alphaType(uint8(a))
			if s.none[kind][t]+g.toPartly[kind][a]-g.from[kind][a] > 0 || g.toFully[kind][a] {
				key |= keyBit(kind, int(t))
			}
		}
	}
	return key
}

// eachCovering calls f for each subject of raises that covers the key
// without a tenant, with the α-combo it is raised to, walking the
// shorter of the two.
func (s *keyScan) eachCovering(raises map[int32]uint8, f func(subj int32, aT uint8)) {
	if len(raises) < len(s.noneCover) {
		for subj, aT := range raises {
			if s.noneCover[subj] != 0 {
				f(subj, aT)
			}
		}
		return
	}
	for subj := range s.noneCover {
		if aT, ok := raises[subj]; ok {
			f(subj, aT)
		}
	}
}

// moveCovering corrects a profile in which subj, which covers the key as
// cn says without a tenant, was counted both at its covering type and, by
// a raise to aT, as if it covered nothing: it keeps one count, at its
// type raised, covering as c says.
func (s *keyScan) moveCovering(cs *counts, subj int32, aT, c uint8) {
	kind, a0 := s.u.kindOf(subj), s.u.base[subj]
	cs[kind][alphaType(a0)]++
	cs[kind][alphaType(aT)]--
	cs[kind][fullType(a0, s.noneCover[subj])]--
	cs[kind][fullType(aT, c)]++
}

// defaultBits are the versions (1 OLD, 2 NEW) whose default grants give
// the key's capability to principals of tenant t.
func (s *keyScan) defaultBits(t int32) uint8 { return s.defaults[noTenant] | s.defaults[t] }

// byDefault reports whether a default grant of the version (bit 1 OLD, 2
// NEW) gives the key's capability to principals of tenant t.
func (s *keyScan) byDefault(t int32, version uint8) bool {
	return (s.defaults[noTenant]|s.defaults[t])&version != 0
}

// bystander returns a member of g that is not relevant to the key: one
// that decides as the group's signature says.
func (s *keyScan) bystander(g *group) (int32, bool) {
	for _, t := range g.members {
		if _, found := slices.BinarySearch(s.relevant, t); !found {
			return t, true
		}
	}
	return 0, false
}

// scan fills the keyScan for key k.
func (s *keyScan) scan(k Key, capOld, capNew string) {
	clear(s.noneCover)
	clear(s.tenCover)
	clear(s.defaults)
	clear(s.seen)
	s.relevant = s.relevant[:0]
	for bit, side := range []*side{s.u.old, s.u.new} {
		capability := capOld
		if bit == 1 {
			capability = capNew
		}
		pack, own := side.covering(k, capability)
		s.addCover(pack, uint8(1<<bit))
		s.addCover(own, uint8(1<<bit))
		dp, do := side.defaultTenants(k, capability)
		for _, t := range append(slices.Clip(dp), do...) {
			s.defaults[t] |= 1 << bit
		}
	}
	s.none = s.global
	for subj, c := range s.noneCover {
		kind, a := s.u.kindOf(subj), s.u.base[subj]
		s.none[kind][alphaType(a)]--
		s.none[kind][fullType(a, c)]++
	}
	s.none[0][0], s.none[1][0] = 0, 0 // type 0 is not counted
	s.coverMask = make([]uint64, (len(s.u.partialBit)+63)/64)
	for subj := range s.noneCover {
		if b, ok := s.u.partialBit[subj]; ok {
			s.coverMask[b/64] |= 1 << (b % 64)
		}
	}
	s.noneKey = profileKey(&s.none, s.defaultBits(noTenant))
	for kind := range 2 {
		for a := 1; a < 4; a++ {
			s.noneKey &^= keyBit(kind, int(alphaType(uint8(a))))
		}
	}
	for t := range s.tenCover {
		s.relevant = append(s.relevant, t)
	}
	for t := range s.defaults {
		if t != noTenant {
			s.relevant = append(s.relevant, t)
		}
	}
	slices.Sort(s.relevant)
	s.relevant = slices.Compact(s.relevant)
}

func (s *keyScan) addCover(hs []holder, bit uint8) {
	for _, h := range hs {
		if h.tenant == noTenant {
			s.noneCover[h.subject] |= bit
			continue
		}
		m := s.tenCover[h.tenant]
		if m == nil {
			m = map[int32]uint8{}
			s.tenCover[h.tenant] = m
		}
		m[h.subject] |= bit
	}
}

// tenantCounts is the profile of a principal of tenant t, which has a
// grant or a default of its own for the key: the profile without a
// tenant, with every subject that t raises moved from its base α-combo to
// its combo under t, and each subject that covers the key, without a
// tenant or by t's own grants, at its type under t.
func (s *keyScan) tenantCounts(t int32) counts {
	c := s.none
	ti := &s.u.tenants[t]
	for kind := range 2 {
		for a := 1; a < 4; a++ {
			c[kind][alphaType(uint8(a))] += ti.to[kind][a] - ti.from[kind][a]
		}
	}
	raises := s.u.groups[ti.group].partial
	own := s.tenCover[t]
	s.eachCovering(raises, func(subj int32, aT uint8) {
		s.moveCovering(&c, subj, aT, s.noneCover[subj]|own[subj])
	})
	for subj, ct := range own {
		kind, a0, aT := s.u.kindOf(subj), s.u.base[subj], s.u.alphaOf(subj, t)
		cn := s.noneCover[subj]
		switch {
		case cn != 0 && aT != a0:
			continue // moved above, with its own cover
		case cn != 0:
			c[kind][fullType(a0, cn)]--
		default:
			c[kind][alphaType(aT)]--
		}
		c[kind][fullType(aT, cn|ct)]++
	}
	c[0][0], c[1][0] = 0, 0
	return c
}

// typeUnder is subject subj's type for the key scanned, for a principal
// of tenant t.
func (s *keyScan) typeUnder(subj, t int32) uint8 {
	c := s.noneCover[subj]
	if t != noTenant {
		c |= s.tenCover[t][subj]
	}
	return fullType(s.u.alphaOf(subj, t), c)
}
