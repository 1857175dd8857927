package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// replay bounds the heap while it runs, and leaves the process's limit
// as it found it; a GOMEMLIMIT of the user's wins.
func TestReplayBoundsMemory(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	restore := boundMemory()
	during := debug.SetMemoryLimit(-1)
	restore()
	after := debug.SetMemoryLimit(-1)
	if during == math.MaxInt64 || during < replayHeadroom || during >= before {
		t.Errorf("limit during a replay %d, before %d: not bounded", during, before)
	}
	if after != before {
		t.Errorf("limit after a replay %d, want %d as before", after, before)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	restore = boundMemory()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("with GOMEMLIMIT set, replay changed the limit to %d", got)
	}
	restore()
}
