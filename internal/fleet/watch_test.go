package fleet

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// Watch waits: between rounds, and on sidecars that do not answer. Its
// tests run in a synctest bubble, whose clock is not the machine's: it
// moves only when every goroutine in the bubble waits, and the sidecars
// here (fakeSidecars, in memory) answer at once or wait for the request
// to end. So the bubble's clock reads exactly the waits Watch makes, on
// a loaded machine as on an idle one.

// fakeSidecars answer GET /v1/status in memory: the n-th request (from 1)
// with the bundle at revision status(n), or, when that is "", not at all,
// until the request ends.
type fakeSidecars struct {
	status func(n int) string
	mu     sync.Mutex
	asked  int
}

func (f *fakeSidecars) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	f.asked++
	rev := f.status(f.asked)
	f.mu.Unlock()
	if rev == "" {
		<-r.Context().Done()
		return nil, r.Context().Err()
	}
	body := fmt.Sprintf(`{"result": {"bundles": {"hcp": {"active_revision": %q}}}}`, rev)
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// client asks f as Client asks real sidecars, each request bounded by
// requestTimeout.
func (f *fakeSidecars) client() Client {
	return Client{Bundle: "hcp", HTTP: &http.Client{Timeout: requestTimeout, Transport: f}}
}

// watch runs Watch for the urls and returns its rows and how long it
// took by the bubble's clock.
func watch(c Client, urls []string, want string, wait time.Duration) ([]Sidecar, time.Duration) {
	start := time.Now()
	rows := c.Watch(context.Background(), urls, want, wait)
	return rows, time.Since(start)
}

// TestWatchPollsUntilWait: a sidecar that never runs the revision wanted
// is asked once a pollInterval until the wait has passed: for a wait of
// 1.5 s, at 0 and at 1 s (at 2 s the wait is over), and Watch returns
// then, with what it said.
func TestWatchPollsUntilWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeSidecars{status: func(int) string { return "r1" }}
		rows, took := watch(f.client(), []string{"http://opa:8181"}, "r9", 1500*time.Millisecond)
		if f.asked != 2 || took != pollInterval {
			t.Errorf("for a wait of 1.5 s: asked %d times, returned after %v; want 2 times, after %v", f.asked, took, pollInterval)
		}
		if len(rows) != 1 || rows[0].Revision != "r1" {
			t.Errorf("rows %+v, want the sidecar on r1", rows)
		}
	})
}

// TestWatchEndsAtWait: a sidecar that answered the first round and then
// stops answering does not hold Watch past its wait (each request may
// take seconds, and a sidecar without the status plugin is asked three
// times); the rows are those of the last whole round.
func TestWatchEndsAtWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeSidecars{status: func(n int) string { return map[int]string{1: "r1"}[n] }}
		wait := 1500 * time.Millisecond
		rows, took := watch(f.client(), []string{"http://opa:8181"}, "r2", wait)
		if took != wait {
			t.Errorf("Watch for %v returned after %v, want at the wait's end (a stalled sidecar holds it for a request's timeout, %v)", wait, took, requestTimeout)
		}
		if len(rows) != 1 || !rows[0].Reachable || rows[0].Revision != "r1" {
			t.Errorf("rows %+v: want the first round's, r1", rows)
		}
	})
}

// TestWatchFirstRoundEnds: however many sidecars stall, the first round
// ends by firstRound (for a wait shorter than it), each one not heard from
// a row that timed out. Asked a few at a time, each for a request's
// timeout, forty stalled sidecars took five rounds of it.
func TestWatchFirstRoundEnds(t *testing.T) {
	defer func(d time.Duration) { firstRound = d }(firstRound)
	firstRound = 300 * time.Millisecond
	synctest.Test(t, func(t *testing.T) {
		f := &fakeSidecars{status: func(int) string { return "" }}
		urls := make([]string, 40)
		for i := range urls {
			urls[i] = fmt.Sprintf("http://opa-%d:8181", i)
		}
		rows, took := watch(f.client(), urls, "r1", 0)
		if took != firstRound || f.asked != len(urls) {
			t.Errorf("Watch with wait 0 asked %d stalled sidecars and returned after %v, want each once and %v", f.asked, took, firstRound)
		}
		for _, r := range rows {
			if r.Reachable || r.LastError != "unreachable: timed out" {
				t.Fatalf("row %+v: want one that timed out", r)
			}
		}
	})
}
