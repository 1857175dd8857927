package fleet

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestConverged(t *testing.T) {
	on := func(rev string) Sidecar { return Sidecar{Revision: rev, Reachable: true} }
	gone := Sidecar{LastError: "unreachable: connection refused"}
	stale := Sidecar{Revision: "r2"} // answered its revision, then failed
	tests := []struct {
		name string
		rows []Sidecar
		want string
		done bool
	}{
		{"all on r2", []Sidecar{on("r2"), on("r2")}, "r2", true},
		{"one on r1", []Sidecar{on("r2"), on("r1")}, "r2", false},
		{"one unreachable", []Sidecar{on("r2"), gone}, "r2", false},
		{"one not asked to the end", []Sidecar{on("r2"), stale}, "r2", false},
		{"no revision wanted, all active", []Sidecar{on("r1"), on("r2")}, "", true},
		{"no revision wanted, one inactive", []Sidecar{on("r1"), on("")}, "", false},
		{"no revision wanted, one unreachable", []Sidecar{on("r1"), gone}, "", false},
	}
	for _, tt := range tests {
		if got := Converged(tt.rows, tt.want); got != tt.done {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.done)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:8181", "https://opa.internal/", "http://[::1]:8181"} {
		if err := CheckURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"127.0.0.1:8181", "ftp://h", "http://", "http://h/?x=1", "http://u:pw@h", "u:pw@h:1"} {
		err := CheckURL(bad)
		if err == nil || strings.Contains(err.Error(), "pw") {
			t.Errorf("%s: %v, want an error that does not echo the password", bad, err)
		}
	}
}

// TestAnswers reads what an OPA answers, status plugin or not, and
// answers that are not an OPA's.
func TestAnswers(t *testing.T) {
	handler := func(routes map[string]string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, ok := routes[r.URL.RequestURI()]
			if !ok {
				w.WriteHeader(http.StatusInternalServerError)
				w.Write([]byte(`{"code": "internal_error", "message": "status plugin not enabled"}`))
				return
			}
			w.Write([]byte(body))
		})
	}
	withStatus := httptest.NewServer(handler(map[string]string{
		"/v1/status": `{"result": {"bundles": {"hcp": {"active_revision": "r2", "last_successful_activation": "2026-01-02T03:04:05.6Z",
			"code": "bundle_error", "message": "unexpected error", "errors": [{"message": "digest\nmismatch"}]}}}}`,
	}))
	defer withStatus.Close()
	without := httptest.NewServer(handler(map[string]string{
		"/v1/data/system/bundles/hcp": `{"result": {"manifest": {"revision": "r1"}}}`,
		"/health?bundles":             `{}`,
	}))
	defer without.Close()
	notOPA := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }))
	defer notOPA.Close()

	rows := Client{Bundle: "hcp"}.Ask(context.Background(), []string{withStatus.URL, without.URL, notOPA.URL})
	want := []Sidecar{
		{URL: withStatus.URL, Revision: "r2", LastActivation: "2026-01-02T03:04:05Z", LastError: "unexpected error: digest mismatch", Reachable: true, Source: "status"},
		{URL: without.URL, Revision: "r1", Reachable: true, Source: "bundles"},
		{URL: notOPA.URL, LastError: "GET /v1/status: the answer is not JSON: not an OPA?"},
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, rows[i], want[i])
		}
	}
	start := time.Now()
	Client{Bundle: "hcp"}.Watch(context.Background(), []string{without.URL}, "r9", 1500*time.Millisecond)
	if d := time.Since(start); d < time.Second || d > 3*time.Second {
		t.Errorf("Watch for 1.5s took %v", d)
	}
}

// TestWatchEndsAtWait: a sidecar that answered the first round and then
// stops answering must not hold Watch past its wait (each request may
// take seconds, and a sidecar without the status plugin is asked three
// times); the rows are those of the last whole round.
func TestWatchEndsAtWait(t *testing.T) {
	release := make(chan struct{})
	var asked atomic.Int32
	stalls := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/status" && asked.Add(1) > 1 {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Write([]byte(`{"result": {"bundles": {"hcp": {"active_revision": "r1"}}}}`))
	}))
	defer stalls.Close()
	defer close(release)
	start := time.Now()
	rows := Client{Bundle: "hcp"}.Watch(context.Background(), []string{stalls.URL}, "r2", 1500*time.Millisecond)
	if d := time.Since(start); d >= requestTimeout {
		t.Errorf("Watch for 1.5s took %v: a stalled sidecar held it for a request's timeout", d)
	}
	if len(rows) != 1 || !rows[0].Reachable || rows[0].Revision != "r1" {
		t.Errorf("rows %+v: want the first round's, r1", rows)
	}
}
