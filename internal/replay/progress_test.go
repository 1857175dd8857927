package replay

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestProgressToTheEnd: a replay reports its progress as it goes, the
// counts never going back, and once at the end with every event read and
// every distinct input decided.
func TestProgressToTheEnd(t *testing.T) {
	var mu sync.Mutex
	var seen []Progress
	slow := func(ctx context.Context, input any) (map[string]any, error) {
		time.Sleep(time.Millisecond) // so that the run spans a few reports
		return candidate(nil)(ctx, input)
	}
	o := Options{Workers: 2, Progress: func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, p)
	}}
	r := run(t, slow, o, bigLog(3000, 600))
	if len(seen) < 2 {
		t.Fatalf("%d progress reports, want some during the run and one at its end", len(seen))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Events < seen[i-1].Events || seen[i].Decided < seen[i-1].Decided || seen[i].Elapsed < seen[i-1].Elapsed {
			t.Errorf("report %d went back: %+v after %+v", i, seen[i], seen[i-1])
		}
	}
	last := seen[len(seen)-1]
	if last.Events != 3000 || last.Decided != r.Decided || r.Decided != 600 {
		t.Errorf("the last report %+v, want 3000 events and the report's %d distinct inputs decided (600)", last, r.Decided)
	}
}
