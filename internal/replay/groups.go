package replay

import (
	"cmp"
	"container/heap"
	"hash/fnv"
)

// DefaultMaxGroups is how many groups a report lists: a group keeps at
// most about 1.5 KB (each text kept to keptLen), so they hold about 40 MB
// at most. Beyond it, the report lists the groups that come first in a
// fixed order, widened first, and says how many decisions it does not
// list; the counts of every change stay exact.
const DefaultMaxGroups = 25_000

// groups is a tally's set of groups, at most max of them. Which groups it
// keeps depends only on their keys, never on the order events come in:
// the max that come first by rank (widened, then narrowed, then changed,
// then by a hash of the key). A group that is not among them in one tally
// is not among them in the whole, so a kept group's count is exact
// whatever way the tallies merge.
type groups struct {
	max    int
	byKey  map[groupKey]*ranked
	ranked rankHeap // the kept groups, the last by rank on top
	capped bool     // whether a group was left out
}

func newGroups(max int) *groups {
	return &groups{max: max, byKey: map[groupKey]*ranked{}}
}

// add adds count events to the group of k, whose first is example (the
// decision_id as kept, already short: see kept), unless the group is left
// out.
func (s *groups) add(k groupKey, count, first int64, example string) {
	e := s.byKey[k]
	if e == nil {
		r := rankOf(k)
		if len(s.ranked) == s.max {
			s.capped = true
			if compareRanks(r, s.ranked[0].rank) > 0 {
				return
			}
			last := heap.Pop(&s.ranked).(*ranked)
			delete(s.byKey, last.rank.key)
		}
		e = &ranked{rank: r, Group: Group{PackID: k.call.PackID, Kind: k.call.Kind, Key: k.call.Key, From: k.from, To: k.to, Change: k.change,
			first: first, Example: example}}
		s.byKey[k] = e
		heap.Push(&s.ranked, e)
	}
	g := &e.Group
	g.Count += count
	if first < g.first {
		g.first, g.Example = first, example
	}
}

// ranked is a group kept, with its rank.
type ranked struct {
	Group
	rank rank
}

// rank is where a group stands among the groups a report may list.
type rank struct {
	change int
	hash   uint64
	key    groupKey
}

func rankOf(k groupKey) rank {
	h := fnv.New64a()
	for _, s := range []string{k.call.PackID, k.call.Kind, k.call.Key, k.from, k.to} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return rank{change: changeOrder[k.change], hash: h.Sum64(), key: k}
}

func compareRanks(a, b rank) int {
	return cmp.Or(
		cmp.Compare(a.change, b.change),
		cmp.Compare(a.hash, b.hash),
		cmp.Compare(a.key.call.PackID, b.key.call.PackID),
		cmp.Compare(a.key.call.Kind, b.key.call.Kind),
		cmp.Compare(a.key.call.Key, b.key.call.Key),
		cmp.Compare(a.key.from, b.key.from),
		cmp.Compare(a.key.to, b.key.to),
	)
}

// rankHeap is a heap of groups with the last by rank at its root.
type rankHeap []*ranked

func (h rankHeap) Len() int           { return len(h) }
func (h rankHeap) Less(i, j int) bool { return compareRanks(h[i].rank, h[j].rank) > 0 }
func (h rankHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(x any)        { *h = append(*h, x.(*ranked)) }
func (h *rankHeap) Pop() any {
	old := *h
	g := old[len(old)-1]
	*h = old[:len(old)-1]
	return g
}
