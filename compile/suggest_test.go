package compile

import "testing"

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
