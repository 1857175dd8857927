package fleet

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// countingSidecar answers from routes (by request URI) and counts the
// requests for each; a path it has no route for answers as OPA without
// its status plugin, or 404.
func countingSidecar(t *testing.T, routes map[string]string) (*httptest.Server, func(string) int) {
	var mu sync.Mutex
	asked := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.RequestURI()]++
		mu.Unlock()
		body, ok := routes[r.URL.RequestURI()]
		switch {
		case !ok && r.URL.Path == "/v1/status":
			w.WriteHeader(http.StatusInternalServerError)
			body = `{"code": "internal_error", "message": "status plugin not enabled"}`
		case !ok:
			w.WriteHeader(http.StatusNotFound)
			body = `{}`
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, func(uri string) int { mu.Lock(); defer mu.Unlock(); return asked[uri] }
}

// TestAskEach asks two sidecars of a cell about its policy bundle and
// two shards: the one with the status plugin is asked /v1/status once
// for all three, and its data for the one bundle the plugin does not
// list; the one without is asked each bundle's data, and its health and
// bundle list once. Each row is what that sidecar says of that bundle.
func TestAskEach(t *testing.T) {
	withStatus, askedWith := countingSidecar(t, map[string]string{
		"/v1/status": `{"result": {"bundles": {"hcp": {"active_revision": "p1"}, "shard-1": {"active_revision": "s1",
			"last_successful_activation": "2026-01-02T03:04:05Z"}}}}`,
		"/v1/data/system/bundles/shard-2": `{"result": {"manifest": {"revision": "s2"}}}`,
		"/health?bundles":                 `{}`,
	})
	without, askedWithout := countingSidecar(t, map[string]string{
		"/v1/data/system/bundles/hcp":     `{"result": {"manifest": {"revision": "p1"}}}`,
		"/v1/data/system/bundles/shard-1": `{"result": {"manifest": {"revision": "s0"}}}`,
		"/v1/data/system/bundles/shard-2": `{}`,
		"/v1/data/system/bundles":         `{"result": {"hcp": {}, "shard-1": {}, "shard-3": {}}}`,
		"/health?bundles":                 `{}`,
	})
	names := []string{"hcp", "shard-1", "shard-2"}
	rows := Client{}.AskEach(context.Background(), []string{withStatus.URL, without.URL}, names)
	want := [][]Sidecar{
		{{URL: withStatus.URL, Revision: "p1", Reachable: true, Source: "status"}, {URL: without.URL, Revision: "p1", Reachable: true, Source: "bundles"}},
		{{URL: withStatus.URL, Revision: "s1", LastActivation: "2026-01-02T03:04:05Z", Reachable: true, Source: "status"}, {URL: without.URL, Revision: "s0", Reachable: true, Source: "bundles"}},
		{{URL: withStatus.URL, Revision: "s2", Reachable: true, Source: "bundles"},
			{URL: without.URL, Reachable: true, Source: "bundles", LastError: `no bundle "shard-2" here: the sidecar has "hcp", "shard-1", "shard-3": pass --bundle with the name of ours`}},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d bundles' rows, want %d", len(rows), len(want))
	}
	for i := range want {
		for j := range want[i] {
			if rows[i][j] != want[i][j] {
				t.Errorf("%s on sidecar %d: %+v, want %+v", names[i], j, rows[i][j], want[i][j])
			}
		}
	}
	for uri, n := range map[string]int{"/v1/status": 1, "/v1/data/system/bundles/hcp": 0, "/v1/data/system/bundles/shard-2": 1, "/health?bundles": 1} {
		if got := askedWith(uri); got != n {
			t.Errorf("the sidecar with the status plugin was asked %s %d times, want %d", uri, got, n)
		}
	}
	for uri, n := range map[string]int{"/v1/status": 1, "/v1/data/system/bundles/hcp": 1, "/health?bundles": 1, "/v1/data/system/bundles": 1} {
		if got := askedWithout(uri); got != n {
			t.Errorf("the sidecar without the status plugin was asked %s %d times, want %d", uri, got, n)
		}
	}
}

// TestConvergedEach: a cell is done when every bundle is, each on the
// revision wanted of it, or some revision when none is.
func TestConvergedEach(t *testing.T) {
	on := func(revs ...string) []Sidecar {
		var rows []Sidecar
		for _, r := range revs {
			rows = append(rows, Sidecar{Revision: r, Reachable: true})
		}
		return rows
	}
	wants := []Want{{"hcp", ""}, {"shard-1", "s2"}}
	tests := []struct {
		name string
		rows [][]Sidecar
		done bool
	}{
		{"all done", [][]Sidecar{on("p1", "p1"), on("s2", "s2")}, true},
		{"one shard behind", [][]Sidecar{on("p1", "p1"), on("s2", "s1")}, false},
		{"the policy bundle not active", [][]Sidecar{on("p1", ""), on("s2", "s2")}, false},
	}
	for _, tt := range tests {
		if got := ConvergedEach(tt.rows, wants); got != tt.done {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.done)
		}
	}
}

// TestReportsTable writes a row a sidecar and bundle, a sidecar's
// bundles together.
func TestReportsTable(t *testing.T) {
	r := Reports{Bundles: []Report{
		{Bundle: "hcp", Sidecars: []Sidecar{{URL: "http://a:8181", Revision: "p1"}, {URL: "http://b:8181", LastError: "unreachable: timed out"}}},
		{Bundle: "shard-1", Sidecars: []Sidecar{{URL: "http://a:8181", Revision: "s1"}, {URL: "http://b:8181", LastError: "unreachable: timed out"}}},
	}}
	var out bytes.Buffer
	if err := r.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"URL            BUNDLE   REVISION  LAST ACTIVATION  LAST ERROR",
		"http://a:8181  hcp      p1        -                -",
		"http://a:8181  shard-1  s1        -                -",
		"http://b:8181  hcp      -         -                unreachable: timed out",
		"http://b:8181  shard-1  -         -                unreachable: timed out",
		"",
	}, "\n")
	if out.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", out.String(), want)
	}
}
