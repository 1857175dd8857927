package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hcp-rego/hcp-rego/internal/replay"
)

// TestReplayProgressOnATerminalOnly: replay writes its progress to stderr
// only when stderr is a terminal (the master side of a pseudo-terminal
// is one; a pipe and a file are not), and a piped run's stderr holds
// none of it.
func TestReplayProgressOnATerminalOnly(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if terminal(w) || terminal(file) || terminal(&bytes.Buffer{}) {
		t.Error("a pipe, a file or a buffer is taken for a terminal: a piped replay would write progress lines")
	}
	if pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0); err == nil {
		defer pty.Close()
		if !terminal(pty) {
			t.Error("a pseudo-terminal is not taken for a terminal: replay would show no progress there")
		}
	}
	code, stdout, stderr := runTestCLI(t, "replay", "../../testdata/packs", "--grants", "../../testdata/grants/acme.json", "../../testdata/logs/decisions.log")
	if code != 0 || !strings.Contains(stdout, "replayed") || strings.Contains(stderr, "events read") || strings.Contains(stderr, "\r") {
		t.Errorf("exit %d, stderr %q: want a report and no progress", code, stderr)
	}
}

// TestProgressLine: the line a terminal shows, rewritten in place.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	progressLine(&b)(replay.Progress{Events: 5000, Decided: 120, Elapsed: 2 * time.Second})
	if want := "\r\x1b[K5000 events read, 120 distinct inputs decided, 2500 events/s"; b.String() != want {
		t.Errorf("%q, want %q", b.String(), want)
	}
}
