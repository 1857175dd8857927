// Package maketest fails on purpose: TestMakeGotestReportsFailures runs
// make's go test recipe on it (go test ./... skips testdata) and checks
// that the one failed test's output is named at the end, and the passing
// tests' output is not.
package maketest

import "testing"

func TestPassesLoudly(t *testing.T) {
	for i := range 200 {
		t.Logf("noise line %d of a passing test", i)
	}
}

func TestPassesQuietly(t *testing.T) {}

func TestFailsOnPurpose(t *testing.T) {
	t.Log("the line before the failure")
	t.Error("the failure make must show")
}
