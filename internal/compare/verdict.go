package compare

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/hcp-rego/hcp-rego/compile"
)

// Disposition is what a harness shows of a decision: deny (any code but
// the two below), ask (confirm_required) or allow (allowed), in this order
// of permissiveness.
type Disposition int8

// The dispositions, least permissive first.
const (
	Deny Disposition = iota
	Ask
	Allow
)

func (d Disposition) String() string {
	return [...]string{"deny", "ask", "allow"}[d]
}

// dispositionOf maps a decision's code to its disposition.
func dispositionOf(code string) Disposition {
	switch code {
	case "allowed":
		return Allow
	case "confirm_required":
		return Ask
	}
	return Deny
}

// Verdict is what compare says of a key (docs/compare.md).
type Verdict string

// The verdicts.
const (
	Same     Verdict = "same"
	Narrower Verdict = "narrower"
	Wider    Verdict = "wider"
	Mixed    Verdict = "mixed"
	Added    Verdict = "added"
	Removed  Verdict = "removed"
)

// approval is what a call brings to the confirm gate
// (docs/decisions.md#the-chain, gate), as three classes: nothing (mode
// ask, no confirm or apply, no allow rule that matches), mode run alone,
// or confirm: true (as apply: true and a matching allow rule do, for every
// gate).
type approval uint8

const (
	approveNothing approval = iota
	approveRun
	approveConfirm
)

// The lands as bits of a set of land facts that hold.
var landBits = map[string]uint8{"personal": 1, "brain": 2, "local": 4}

// allLands is the set of land facts where every land's holds.
const allLands uint8 = 7

// combo is one class of calls for a key: the pair of (held under OLD,
// held under NEW) of its principal class, the land facts that hold, and
// the approval; with the dispositions each version gives it. The pack is
// reachable and the input well formed: otherwise both versions deny.
type combo struct {
	pair     int
	lands    uint8
	approval approval
	old, new Disposition
}

// disposition is what a version with row decides for a call whose
// principal holds the capability or not, with the land facts and the
// approval given, and no runtime layer (one can only take differences
// away: see docs/compare.md).
func disposition(row *compile.Row, held bool, lands uint8, a approval) Disposition {
	switch {
	case row == nil, !held, lands&landBits[row.Land] == 0:
		return Deny
	}
	switch row.Gate {
	case compile.GateTrue:
		if a == approveNothing {
			return Ask
		}
	case compile.GateAlways:
		if a != approveConfirm {
			return Ask
		}
	}
	return Allow
}

// combos lists the classes of calls on which the versions decide the key
// differently: those NEW decides more permissively and those it decides
// less permissively, each in the order of preference for an example (the
// largest step first, then the plainest call: no approval, every land
// fact holding).
func combos(old, new *compile.Row, p *pairs) (wider, narrower []combo) {
	masks := landMasks(old, new)
	for pair := range 4 {
		if !p.found[pair] {
			continue
		}
		for _, lands := range masks {
			for a := approveNothing; a <= approveConfirm; a++ {
				c := combo{pair: pair, lands: lands, approval: a,
					old: disposition(old, pair&1 != 0, lands, a), new: disposition(new, pair&2 != 0, lands, a)}
				switch {
				case c.new > c.old:
					wider = append(wider, c)
				case c.new < c.old:
					narrower = append(narrower, c)
				}
			}
		}
	}
	slices.SortStableFunc(wider, func(a, b combo) int { return preference(a.new-a.old, b.new-b.old, a, b) })
	slices.SortStableFunc(narrower, func(a, b combo) int { return preference(a.old-a.new, b.old-b.new, a, b) })
	return wider, narrower
}

func preference(stepA, stepB Disposition, a, b combo) int {
	return cmp.Or(cmp.Compare(stepB, stepA), cmp.Compare(a.approval, b.approval),
		cmp.Compare(bits.OnesCount8(^a.lands&allLands), bits.OnesCount8(^b.lands&allLands)))
}

// landMasks are the sets of land facts that tell the versions' rows
// apart: every subset of the rows' lands, the other lands' facts holding,
// the set where all hold first.
func landMasks(old, new *compile.Row) []uint8 {
	var used uint8
	for _, r := range []*compile.Row{old, new} {
		if r != nil {
			used |= landBits[r.Land]
		}
	}
	var masks []uint8
	for sub := used; ; sub = (sub - 1) & used {
		masks = append(masks, sub|(allLands&^used))
		if sub == 0 {
			return masks
		}
	}
}

// verdictOf is the key's verdict from its rows and the calls decided
// differently.
func verdictOf(old, new *compile.Row, wider, narrower []combo) Verdict {
	switch {
	case old == nil:
		return Added
	case new == nil:
		return Removed
	case len(wider) > 0 && len(narrower) > 0:
		return Mixed
	case len(wider) > 0:
		return Wider
	case len(narrower) > 0:
		return Narrower
	}
	return Same
}
