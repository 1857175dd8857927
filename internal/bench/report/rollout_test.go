package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestJudge holds the rollout table's check of each answer to its rules:
// the old revision's answer before the fetch, either during it, the new
// one's once it is active, and a failed request wrong wherever it falls.
func TestJudge(t *testing.T) {
	old := &revisionFile{name: "r2", answers: []string{`{"code":"a"}`, `{"code":"same"}`}}
	next := &revisionFile{name: "r1", answers: []string{`{"code":"b"}`, `{"code":"same"}`}}
	t0 := time.Now()
	fetched, active := t0.Add(10*time.Second), t0.Add(20*time.Second)
	at := func(start, end int, input int, doc string) answer {
		return answer{start: t0.Add(time.Duration(start) * time.Second), end: t0.Add(time.Duration(end) * time.Second), input: input, doc: doc}
	}
	answers := []answer{
		at(1, 2, 0, `{"code":"a"}`),   // old before: right
		at(3, 4, 0, `{"code":"b"}`),   // new before the fetch: wrong
		at(11, 12, 0, `{"code":"a"}`), // old during: right
		at(13, 14, 0, `{"code":"b"}`), // new during: right
		at(15, 16, 0, `{"code":"c"}`), // neither: wrong
		at(21, 22, 0, `{"code":"a"}`), // old once new is active: wrong
		at(23, 24, 1, `{"code":"same"}`),
		{start: t0.Add(12 * time.Second), end: t0.Add(13 * time.Second), input: 1, err: "connection refused"},
	}
	l := judge(answers, old, next, fetched, active)
	if len(l.wrong) != 4 {
		t.Errorf("%d wrong answers, want 4:\n%s", len(l.wrong), strings.Join(l.wrong, "\n"))
	}
	if l.decisions != 4 {
		t.Errorf("%d decisions during the replacement, want 4", l.decisions)
	}
	if l.p50 != float64(time.Second) {
		t.Errorf("p50 %v, want 1 s", time.Duration(l.p50))
	}
}

// TestProcessCPU reads this process's own CPU time and peak memory, and
// resets its peak, as the table does for the sidecar's.
func TestProcessCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	pid := os.Getpid()
	before, err := processCPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(300 * time.Millisecond)
	for n := 0; time.Now().Before(deadline); n++ {
		_ = strings.Repeat("x", n%100)
	}
	after, err := processCPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	if after-before < 0.1 {
		t.Errorf("300 ms of work read as %.2f CPU-s", after-before)
	}
	held := make([]byte, 64<<20)
	for i := range held {
		held[i] = 1
	}
	if peak := peakRSS(pid); peak < 64<<10 {
		t.Errorf("peak %d KB while holding 64 MB", peak)
	}
	if !resetPeak(pid) {
		t.Logf("this kernel does not reset VmHWM (peak %d KB, resident %d KB)", peakRSS(pid), residentKB(pid))
	}
}
