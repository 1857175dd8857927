package main

import (
	"os"
	"strings"
	"syscall"
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
// resets its peak, as the table does for the sidecar's. The work is a CPU
// time, not a stretch of the clock: the loop spins until the kernel's own
// count for the process (getrusage) has grown by 0.3 s, however long a
// loaded machine takes to give it that, and the /proc reading must have
// grown by as much, to its clock tick.
func TestProcessCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	pid := os.Getpid()
	before, err := processCPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	start := rusageCPU(t)
	giveUp := time.Now().Add(5 * time.Minute) // a hang breaker
	for n := 0; rusageCPU(t)-start < 0.3; n++ {
		for range 10_000 {
			_ = strings.Repeat("x", n%100)
		}
		if time.Now().After(giveUp) {
			t.Fatal("no 0.3 s of CPU in 5 minutes")
		}
	}
	after, err := processCPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	if got := after - before; got < 0.3-2.0/clockTicks {
		t.Errorf("0.3 CPU-s of work read as %.2f CPU-s", got)
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

// rusageCPU is this process's user and system CPU time by getrusage.
func rusageCPU(t *testing.T) float64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
