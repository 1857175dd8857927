package main

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hcp-rego/hcp-rego/internal/syncbuf"
)

// Ctrl-C ends `test --watch` with exit 0, whatever the last run found.
func TestTestWatchEndsWithZeroAtInterrupt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send here")
	}
	mixedTree(t)
	out := &syncbuf.Buffer{}
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"test", "--watch", "--explain"}, streams{in: bytes.NewReader(nil), out: out, err: out})
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "3 passed, 2 failed\n") {
		if time.Now().After(deadline) {
			t.Fatalf("no first run:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The signal handler is in place before the first run starts.
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := self.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d at Ctrl-C, want 0; output:\n%s", code, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not end at Ctrl-C")
	}
	if !strings.Contains(out.String(), "    explain:\n") || strings.Contains(out.String(), "PASS") {
		t.Errorf("want the failures alone, explained:\n%s", out.String())
	}
}

// --watch prints as pretty does: another format or a threshold is a usage
// error, and a path it cannot watch is bad input; each exits 2 at once.
func TestTestWatchRefusesWhatItCannotDo(t *testing.T) {
	mixedTree(t)
	for _, args := range [][]string{
		{"test", "--watch", "--format", "json"},
		{"test", "--watch", "--threshold", "50"},
		{"test", "--watch", "nowhere"},
	} {
		code, stdout, stderr := runTestCLI(t, args...)
		if code != exitBadInput || stdout != "" || stderr == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and a message", args, code, stdout, stderr)
		}
	}
}
