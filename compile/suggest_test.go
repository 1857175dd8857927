package compile

import (
	"strconv"
	"strings"
	"testing"
)

func TestClosestFirst(t *testing.T) {
	for _, tt := range []struct {
		want  string
		names []string
		text  string
	}{
		{"purchace", []string{"browse", "purchase", "refund"}, `"purchase", "browse", "refund"`},
		{"ledgr", []string{"workspace", "mail", "ledger"}, `"ledger", "mail", "workspace"`},
		{"x", []string{"b", "a"}, `"a", "b"`}, // ties by name
		{"a", []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "b10"}, `"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", and 2 more`},
	} {
		if got := closestFirst(tt.want, tt.names); got != tt.text {
			t.Errorf("closestFirst(%q, %q) = %s, want %s", tt.want, tt.names, got, tt.text)
		}
	}
}

func TestEditDistanceBounded(t *testing.T) {
	long := string(make([]byte, 1<<20))
	if d := editDistance(long, long+"x"); d != 0 {
		t.Errorf("a megabyte name: distance %d, want 0 (both cut to 64 bytes)", d)
	}
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Errorf("kitten, sitting: %d, want 3", d)
	}
}

// TestHintsBounded: one run's suggestions stop once their work would pass
// maxHintWork, so that a file of many grants naming verbs a large pack
// lacks costs no more than that; a message then names no suggestion.
func TestHintsBounded(t *testing.T) {
	names := make([]string, 10_000)
	for i := range names {
		names[i] = strings.Repeat("v", 40) + strconv.Itoa(i)
	}
	h := &hints{}
	given, refused := 0, 0
	for range 1000 {
		if h.suggest("its verbs", strings.Repeat("w", 40), names) == "" {
			refused++
		} else {
			given++
		}
	}
	if given == 0 || refused == 0 || h.work > maxHintWork {
		t.Errorf("%d suggestions given, %d refused, work %d of %d: want some of each within the bound", given, refused, h.work, maxHintWork)
	}
	if (&hints{}).suggest("its verbs", "x", nil) != "" {
		t.Error("a suggestion among no names")
	}
}
