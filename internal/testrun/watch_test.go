package testrun

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/hcp-rego/hcp-rego/internal/syncbuf"
)

// watching runs Watch in the background on the current folder, with out
// and errs on one buffer; stop ends it and reports what it returned.
type watching struct {
	out  *syncbuf.Buffer
	done chan error
	stop context.CancelFunc
}

func startWatch(t *testing.T, o Options) *watching {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watching{out: &syncbuf.Buffer{}, done: make(chan error, 1), stop: cancel}
	go func() { w.done <- Watch(ctx, o, w.out, w.out) }()
	t.Cleanup(func() {
		cancel()
		<-w.done
	})
	return w
}

// waitFor waits (bounded) until the output after offset holds want, and
// returns the offset past it.
func (w *watching) waitFor(t *testing.T, offset int, want string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		out := w.out.String()
		if i := strings.Index(out[offset:], want); i >= 0 {
			return offset + i + len(want)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %q after %d bytes of the watch's output:\n%s", want, offset, w.out.String())
	return 0
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const browses = `cases:
  - name: a buyer browses
    input: { principal: { id: b, roles: [buyer] }, pack_id: shop, verb_key: browse, owner: b }
    want: { code: allowed }
`

// The author's loop: an edit is seen and re-run, a failure says why, a bad
// file prints its positioned error and the watch goes on, a folder made
// later is watched, and cancelling ends the watch with no error.
func TestWatchRerunsOnEachChange(t *testing.T) {
	files := refused()
	files["tests/shop.cases.yaml"] = browses
	caseTree(t, files)
	w := startWatch(t, Options{})
	at := w.waitFor(t, 0, "1 passed, 0 failed\n")
	if strings.Contains(w.out.String(), "PASS") {
		t.Errorf("the watch prints passing tests:\n%s", w.out.String())
	}

	// An edit that makes the case fail: the re-run prints the failure,
	// with the decision that came, and the new totals.
	write(t, "tests/shop.cases.yaml", strings.Replace(browses, "code: allowed", "code: land_denied", 1))
	at = w.waitFor(t, at, `FAIL tests/shop.cases.yaml:2: a buyer browses
    code: want "land_denied", got "allowed"
    decision: code "allowed"
0 passed, 1 failed
`)

	// A bad file: its positioned error, and the watch goes on.
	write(t, "packs/shop/policy.json", "{\n  \"surface_id\": \"shop\",\n  \"verbs\": {\n")
	at = w.waitFor(t, at, "packs/shop/policy.json:4:1: ")
	write(t, "packs/shop/policy.json", shop["packs/shop/policy.json"])
	at = w.waitFor(t, at, "0 passed, 1 failed\n")

	// A folder made after the watch began is watched too: a case file
	// written into it later is run.
	if err := os.MkdirAll("more/deeper", 0o755); err != nil {
		t.Fatal(err)
	}
	at = w.waitFor(t, at, "0 passed, 1 failed\n")
	write(t, "more/deeper/more.cases.yaml", strings.Replace(browses, "a buyer browses", "another", 1))
	w.waitFor(t, at, "1 passed, 1 failed\n")

	w.stop()
	select {
	case err := <-w.done:
		if err != nil {
			t.Errorf("the watch ended with %v, want nil", err)
		}
		w.done <- err
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not end when its context was cancelled")
	}
}

// Files that no run reads make no run; an editor's save of a case file
// (written beside it, renamed over it) makes one. That changes which come
// together make one run is TestDebounce's, on a clock no load can stretch:
// here a pause between two writes of a burst would make two.
func TestWatchDebounces(t *testing.T) {
	files := refused()
	files["tests/shop.cases.yaml"] = browses
	caseTree(t, files)
	w := startWatch(t, Options{})
	at := w.waitFor(t, 0, "1 passed, 0 failed\n")

	write(t, "tests/.shop.cases.yaml.swp", browses+"\n")
	if err := os.Rename("tests/.shop.cases.yaml.swp", "tests/shop.cases.yaml"); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, at, "1 passed, 0 failed\n")
	write(t, "notes.txt", "not an input")
	write(t, "tests/.shop.cases.yaml.swp", "an editor's")
	// Let a wrong run show itself: twice the debounce.
	time.Sleep(2 * Debounce)
	if n := strings.Count(w.out.String(), "passed"); n != 2 {
		t.Errorf("%d runs, want 2 (the first, and one for the save):\n%s", n, w.out.String())
	}
}

// TestDebounce: changes that come together make one run, Debounce after
// the last, which is well within 300 ms; changes a run does not read make
// none; a lost change (the watcher's error) makes one. In a synctest
// bubble, whose clock moves only when every goroutine in it waits, so
// that the times below are the loop's own, on any machine.
func TestDebounce(t *testing.T) {
	if Debounce <= 0 || Debounce >= 300*time.Millisecond {
		t.Fatalf("Debounce %v: a run must start within 300 ms of the last change", Debounce)
	}
	synctest.Test(t, func(t *testing.T) {
		events, failures := make(chan fsnotify.Event), make(chan error)
		start := time.Now()
		var runs []time.Duration
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			debounce(ctx, events, failures,
				func(ev fsnotify.Event) bool { return ev.Name != "notes.txt" },
				func(error) {},
				func() { runs = append(runs, time.Since(start)) })
		}()
		// A burst: five changes, 100 ms apart, each within Debounce of
		// the one before.
		for range 5 {
			events <- fsnotify.Event{Name: "shop.cases.yaml", Op: fsnotify.Write}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(time.Second)
		events <- fsnotify.Event{Name: "notes.txt", Op: fsnotify.Write}
		time.Sleep(time.Second)
		failures <- errors.New("event queue overflow")
		time.Sleep(time.Second)
		cancel()
		<-done
		// The burst's last change came at 400 ms, the error at 2.5 s.
		want := []time.Duration{400*time.Millisecond + Debounce, 2500*time.Millisecond + Debounce}
		if !slices.Equal(runs, want) {
			t.Errorf("runs at %v, want %v", runs, want)
		}
	})
}

// A path that does not exist cannot be watched: that is an error at once.
func TestWatchRefusesAMissingPath(t *testing.T) {
	caseTree(t, refused())
	err := Watch(context.Background(), Options{Paths: []string{"nowhere"}}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("got %v, want an error naming the path", err)
	}
}

// TestWatchFollowsLinks: a folder a link puts under the PATH is watched, as
// discovery walks it: a case file written there is run. (Here the link's
// target is a folder that discovery skips by its name, so only the link
// leads to it.)
func TestWatchFollowsLinks(t *testing.T) {
	files := refused()
	files["tests/shop.cases.yaml"] = browses
	files["_target/keep.txt"] = ""
	caseTree(t, files)
	if err := os.Symlink("_target", "linked"); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, Options{})
	at := w.waitFor(t, 0, "1 passed, 0 failed\n")
	write(t, "_target/more.cases.yaml", strings.Replace(browses, "a buyer browses", "another", 1))
	w.waitFor(t, at, "2 passed, 0 failed\n")
}
