package main

import (
	"runtime/debug"
	"testing"
)

// A build runs with the collector at buildGCPercent, and leaves GOGC as it
// found it; a GOGC of the user's wins.
func TestBuildFewerCollections(t *testing.T) {
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	restore := fewerCollections()
	during := debug.SetGCPercent(-1)
	debug.SetGCPercent(during)
	restore()
	if during != buildGCPercent {
		t.Errorf("GOGC during a build %d, want %d", during, buildGCPercent)
	}
	if after := debug.SetGCPercent(100); after != 100 {
		t.Errorf("GOGC after a build %d, want 100 as before", after)
	}
	t.Setenv("GOGC", "50")
	restore = fewerCollections()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, a build changed it to %d", got)
	}
	restore()
}
