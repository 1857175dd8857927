package matrix

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// TestParallelStopsAtAnError checks that parallel returns the error of a
// cell and starts few cells after it, and that a cancelled context is
// reported as the matrix's.
func TestParallelStopsAtAnError(t *testing.T) {
	boom := errors.New("boom")
	var ran atomic.Int64
	err := parallel(context.Background(), 100_000, func(i int) error {
		ran.Add(1)
		if i == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Errorf("error %v; want %v", err, boom)
	}
	if n := ran.Load(); n >= 100_000 {
		t.Errorf("all %d cells ran after an error", n)
	}
	var all atomic.Int64
	if err := parallel(context.Background(), 50, func(int) error { all.Add(1); return nil }); err != nil || all.Load() != 50 {
		t.Errorf("a clean run: error %v, %d cells; want 50", err, all.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := parallel(ctx, 10, func(int) error { return nil }); err == nil || err.Error() != "compute matrix: context canceled" {
		t.Errorf("cancelled: error %v; want compute matrix: context canceled", err)
	}
}
