package compare

import "slices"

// This file decides which pairs (held under OLD, held under NEW) of the
// key's capability some principal can have: the finite part of the space
// that names make (docs/decisions.md: capability, item 4).
// docs/compare.md gives the argument.
//
// For one tenant class, a principal's id and each of its roles has a type
// (four bits: named and covers, in each version), and the principal's
// bits are the OR of its id's type and its roles' types. Whether it holds
// the capability in a version is named ? covers : the default grants'
// answer for its tenant. So the pairs that some principal reaches are
// those of (one id type that some id has) OR (the OR of any set of role
// types that some roles have). A type that several roles share counts
// once, so only the types present matter, not how many roles have them,
// and the ORs of subsets of at most eight types are found by a closure,
// not by enumerating the roles' subsets.

// witness is a principal class that reaches a pair: its tenant, its id's
// type (0: an id no grant names) and the set of its roles' types (a bit
// a type).
type witness struct {
	tenant int32
	id     uint8
	roles  uint16
}

// pairs records, for each pair (bit 0 held under OLD, bit 1 held under
// NEW), whether some principal reaches it and the first class found that
// does; with collect set, up to maxAlternatives other classes too, among
// which an example that a runtime layer lets through may be found.
type pairs struct {
	found        [4]bool
	by           [4]witness
	collect      bool
	alternatives [4][]witness
}

// maxAlternatives bounds the other classes kept for each pair.
const maxAlternatives = 8

// record notes that class w reaches pair.
func (p *pairs) record(pair int, w witness) {
	switch {
	case !p.found[pair]:
		p.found[pair], p.by[pair] = true, w
	case p.collect && len(p.alternatives[pair]) < maxAlternatives && w != p.by[pair] && !slices.Contains(p.alternatives[pair], w):
		p.alternatives[pair] = append(p.alternatives[pair], w)
	}
}

// classes lists the classes that reach pair, the first found first.
func (p *pairs) classes(pair int) []witness {
	return append([]witness{p.by[pair]}, p.alternatives[pair]...)
}

// complete reports whether every pair is found, and no more classes are
// wanted.
func (p *pairs) complete() bool {
	return !p.collect && p.found[0] && p.found[1] && p.found[2] && p.found[3]
}

// counts is a profile: per kind of subject (id, role) and type, how many
// subjects have that type. Type 0 (named by no grant) is always present:
// an id no grant names, or no role at all.
type counts [2][16]int32

// held reports whether a principal of bits holds the capability in one
// version: a principal:/role: grant applies to it (named), then one of
// them must give it (covers); none applies, then the default grants of its
// tenant decide.
func held(bits, named, covers uint8, byDefault bool) bool {
	if bits&named != 0 {
		return bits&covers != 0
	}
	return byDefault
}

// analyse adds to p the pairs that the principals of a profile reach, for
// tenant, whose default grants give the capability as dOld and dNew say.
func analyse(c *counts, tenant int32, dOld, dNew bool, p *pairs) {
	var vec [16]uint8
	var mask [16]uint16
	var seen [16]bool
	n := 1 // vec[0] is no role at all
	seen[0] = true
	// Breadth first: each OR of role types is first reached with the
	// fewest roles.
	for i := 0; i < n; i++ {
		for t := 1; t < 16; t++ {
			if c[1][t] <= 0 {
				continue
			}
			v := vec[i] | uint8(t)
			if !seen[v] {
				seen[v] = true
				vec[n], mask[n] = v, mask[i]|1<<t
				n++
			}
		}
	}
	for id := range 16 {
		if id != 0 && c[0][id] <= 0 {
			continue
		}
		for i := range n {
			bits := uint8(id) | vec[i]
			pair := 0
			if held(bits, namedOld, coversOld, dOld) {
				pair |= 1
			}
			if held(bits, namedNew, coversNew, dNew) {
				pair |= 2
			}
			p.record(pair, witness{tenant: tenant, id: uint8(id), roles: mask[i]})
		}
	}
}
