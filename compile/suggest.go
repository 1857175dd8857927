package compile

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// maxSuggestions is how many names a message lists for a name it does
// not know.
const maxSuggestions = 8

// maxHintWork bounds the edit-distance work of one lint run's
// suggestions, in byte pairs compared (some 0.1 s): a file of 100,000
// grants that each name a verb missing from a pack of 10,000 would
// otherwise cost the run minutes. Past it, messages name no suggestion.
const maxHintWork = 1 << 26

// hints makes the suggestions of one lint run within maxHintWork.
type hints struct{ work int }

// suggest is the hint of a message about a name that is not there: what
// the names are, and those that are, closest first; "" when there are
// none, or the run's bound on suggestions is spent.
func (h *hints) suggest(what, want string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	cost := 0
	for _, n := range names {
		cost += max(1, min(len(want), 64)) * max(1, min(len(n), 64))
	}
	if h.work+cost > maxHintWork {
		return ""
	}
	h.work += cost
	return what + ", closest first: " + closestFirst(want, names)
}

// closestFirst quotes names for a message about want, which none of them
// is: the names nearest to it in edits first (a typo's intended name
// leads), ties by name, at most maxSuggestions and then how many more.
func closestFirst(want string, names []string) string {
	sorted := slices.Clone(names)
	distance := make(map[string]int, len(sorted))
	for _, n := range sorted {
		distance[n] = editDistance(want, n)
	}
	slices.SortFunc(sorted, func(a, b string) int {
		return cmp.Or(cmp.Compare(distance[a], distance[b]), strings.Compare(a, b))
	})
	shown := sorted[:min(len(sorted), maxSuggestions)]
	quoted := make([]string, len(shown))
	for i, n := range shown {
		quoted[i] = strconv.Quote(n)
	}
	text := strings.Join(quoted, ", ")
	if more := len(sorted) - len(shown); more > 0 {
		text += ", and " + strconv.Itoa(more) + " more"
	}
	return text
}

// editDistance is the Levenshtein distance of a and b, in bytes; names
// are short, and a long one is cut to its first 64 bytes so that the
// cost stays small whatever a file holds.
func editDistance(a, b string) int {
	a, b = a[:min(len(a), 64)], b[:min(len(b), 64)]
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
