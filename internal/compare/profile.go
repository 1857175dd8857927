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
	// touched maps a tenant to the subjects of noneCover that it raises.
	touched  map[int32][]int32
	relevant []int32 // tenants with a grant, a default or a touch here, sorted
	none     counts  // the profile of a principal without a named tenant
	global   counts  // subjects by base α-combo, before any key
	// analyses counts the profiles analysed, for the test that bounds
	// them.
	analyses int
}

func newKeyScan(u *universe) *keyScan {
	s := &keyScan{u: u, noneCover: map[int32]uint8{}, tenCover: map[int32]map[int32]uint8{},
		defaults: map[int32]uint8{}, touched: map[int32][]int32{}}
	for k := range 2 {
		for a := 1; a < 4; a++ {
			s.global[k][alphaType(uint8(a))] = int32(len(u.alpha[k][a]))
		}
	}
	return s
}

// pairs returns the pairs of (held under OLD, held under NEW) that some
// principal reaches for key k, whose capability is capOld in OLD and
// capNew in NEW ("" where the version has no such row).
// With collect set, it keeps other classes that reach each pair too.
func (s *keyScan) pairs(k Key, capOld, capNew string, collect bool) pairs {
	s.scan(k, capOld, capNew)
	p := pairs{collect: collect}
	s.analyse(&s.none, noTenant, &p)
	// A tenant that is not relevant here decides as the tenant-less
	// profile with its group's raises: as any other whose raises leave the
	// same α-combos present. Each such presence is analysed once, so a
	// key costs a few comparisons a group, and at most 64 analyses.
	var seen [64]bool
	seen[presence(&s.none)] = true
	for _, g := range s.u.groups {
		if p.complete() {
			return p
		}
		c := s.bystanderCounts(g)
		if seen[presence(&c)] {
			continue
		}
		t, ok := s.bystander(g)
		if !ok {
			continue
		}
		seen[presence(&c)] = true
		s.analyse(&c, t, &p)
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

// analyse adds to p the pairs of a profile of tenant t (a bystander's is
// analysed as t, whose defaults are noTenant's here).
func (s *keyScan) analyse(c *counts, t int32, p *pairs) {
	s.analyses++
	analyse(c, t, s.byDefault(t, 1), s.byDefault(t, 2), p)
}

// bystanderCounts is the profile of a member of g that is not relevant
// to the key: the tenant-less profile, with the subjects g raises moved
// from their base α-combos, as if they covered nothing (they do not), and
// one at least in each α-combo they are raised to.
func (s *keyScan) bystanderCounts(g *group) counts {
	c := s.none
	for kind := range 2 {
		for a := 1; a < 4; a++ {
			c[kind][alphaType(uint8(a))] -= g.from[kind][a]
			if g.to[kind][a] {
				c[kind][alphaType(uint8(a))]++
			}
		}
	}
	return c
}

// presence is which α-combos a profile has subjects of, beyond those that
// cover: six bits, three a kind.
func presence(c *counts) int {
	bits := 0
	for kind := range 2 {
		for a := 1; a < 4; a++ {
			if c[kind][alphaType(uint8(a))] > 0 {
				bits |= 1 << (kind*3 + a - 1)
			}
		}
	}
	return bits
}

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
	clear(s.touched)
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
		for _, t := range s.u.raisers[subj] {
			s.touched[t] = append(s.touched[t], subj)
		}
	}
	s.none[0][0], s.none[1][0] = 0, 0 // type 0 is not counted
	for t := range s.tenCover {
		s.relevant = append(s.relevant, t)
	}
	for t := range s.defaults {
		if t != noTenant {
			s.relevant = append(s.relevant, t)
		}
	}
	for t := range s.touched {
		s.relevant = append(s.relevant, t)
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

// tenantCounts is the profile of a principal of tenant t, which is
// relevant to the key: the profile without a tenant, with every subject
// that t raises moved from its base α-combo to its combo under t as if it
// covered nothing, and then each subject that covers the key and that t
// raises or its own grants let cover moved to its type under t.
func (s *keyScan) tenantCounts(t int32) counts {
	c := s.none
	ti := &s.u.tenants[t]
	for kind := range 2 {
		for a := 1; a < 4; a++ {
			c[kind][alphaType(uint8(a))] += ti.to[kind][a] - ti.from[kind][a]
		}
	}
	special := slices.Clone(s.touched[t])
	for subj := range s.tenCover[t] {
		special = append(special, subj)
	}
	slices.Sort(special)
	special = slices.Compact(special)
	for _, subj := range special {
		kind, a0, aT := s.u.kindOf(subj), s.u.base[subj], s.u.alphaOf(subj, t)
		cn := s.noneCover[subj]
		if cn != 0 {
			c[kind][fullType(a0, cn)]--
			if aT != a0 { // the raise above moved it as if it covered nothing
				c[kind][alphaType(a0)]++
				c[kind][alphaType(aT)]--
			}
		} else {
			c[kind][alphaType(aT)]--
		}
		c[kind][fullType(aT, cn|s.tenCover[t][subj])]++
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
