package fleet

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
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
	for _, bad := range []string{
		"127.0.0.1:8181", "ftp://h", "http://", "http://h/?x=1", "http://u:pw@h", "u:pw@h:1",
		"http://h:8181#", "http://h:8181/?", "http://:8181", "http://h:99999", "http://h:0",
	} {
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
	// Another bundle's odd entry is no concern of hcp's row; hcp's is.
	oddOther := httptest.NewServer(handler(map[string]string{
		"/v1/status": `{"result": {"bundles": {"hcp": {"active_revision": "r2"}, "other": {"active_revision": 5}}}}`,
	}))
	defer oddOther.Close()
	oddOurs := httptest.NewServer(handler(map[string]string{
		"/v1/status": `{"result": {"bundles": {"hcp": {"active_revision": {"r": 2}}}}}`,
	}))
	defer oddOurs.Close()
	// A redirect to another sidecar must not report that one's revision.
	redirects := httptest.NewServer(http.RedirectHandler(withStatus.URL+"/v1/status", http.StatusFound))
	defer redirects.Close()

	rows := Client{Bundle: "hcp"}.Ask(context.Background(), []string{withStatus.URL, without.URL, notOPA.URL, oddOther.URL, oddOurs.URL, redirects.URL})
	want := []Sidecar{
		{URL: withStatus.URL, Revision: "r2", LastActivation: "2026-01-02T03:04:05Z", LastError: "unexpected error: digest mismatch", Reachable: true, Source: "status"},
		{URL: without.URL, Revision: "r1", Reachable: true, Source: "bundles"},
		{URL: notOPA.URL, LastError: "GET /v1/status: the answer is not JSON: not an OPA?"},
		{URL: oddOther.URL, Revision: "r2", Reachable: true, Source: "status"},
		{URL: oddOurs.URL, LastError: `GET /v1/status: the status of bundle "hcp" is not what OPA writes`},
		{URL: redirects.URL, LastError: "GET /v1/status answered 302 Found, a redirect: status follows none, give the sidecar's own address"},
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, rows[i], want[i])
		}
	}
}

// TestAnswersByExactNames reads answers whose member names differ from
// OPA's in case, or name a member twice in one object: a name is OPA's
// exactly or is not read, and an answer with a name twice, at any level,
// is an error row that says so, never the first or the last of the two
// (encoding/json read "Active_Revision" as active_revision and kept the
// last: a sidecar on OLD was reported on R).
func TestAnswersByExactNames(t *testing.T) {
	const status, data, health, list = "/v1/status", "/v1/data/system/bundles/hcp", "/health?bundles", "/v1/data/system/bundles"
	withData := func(body string) map[string]string { return map[string]string{data: body, health: `{}`} }
	twice := func(path, pointer string) string {
		return "GET " + path + ": the answer names " + strconv.Quote(pointer) + " twice in one object: not what OPA answers"
	}
	tests := []struct {
		name   string
		routes map[string]string
		want   Sidecar // URL and Source left out
	}{
		{"a case variant beside the name", map[string]string{status: `{"result": {"bundles": {"hcp": {"active_revision": "OLD", "Active_Revision": "R"}}}}`},
			Sidecar{Revision: "OLD", Reachable: true}},
		{"a case variant alone", map[string]string{status: `{"result": {"bundles": {"hcp": {"Active_Revision": "R"}}}}`},
			Sidecar{Reachable: true}},
		{"the bundle's name in another case", map[string]string{status: `{"result": {"bundles": {"HCP": {"active_revision": "R"}}}}`, data: `{}`, health: `{}`, list: `{"result": {"HCP": {}}}`},
			Sidecar{Reachable: true, LastError: `no bundle "hcp" here: the sidecar has one, "HCP" (opa run --bundle PATH names a bundle by its path): pass --bundle HCP`}},
		{"result in another case", map[string]string{status: `{"Result": {"bundles": {"hcp": {"active_revision": "R"}}}}`, data: `{}`, health: `{}`, list: `{"Result": {"hcp": {}}}`},
			Sidecar{Reachable: true, LastError: `no bundle "hcp" here: the sidecar has no bundle active`}},
		{"an error's message in another case", map[string]string{status: `{"result": {"bundles": {"hcp": {"active_revision": "R", "code": "bundle_error", "message": "refused", "errors": [{"Message": "not OPA's"}, {"message": "bad signature"}]}}}}`},
			Sidecar{Revision: "R", Reachable: true, LastError: "refused: bad signature"}},
		{"the revision twice", map[string]string{status: `{"result": {"bundles": {"hcp": {"active_revision": "OLD", "active_revision": "R"}}}}`},
			Sidecar{LastError: twice(status, "/result/bundles/hcp/active_revision")}},
		{"the bundle twice", map[string]string{status: `{"result": {"bundles": {"hcp": {"active_revision": "OLD"}, "hcp": {"active_revision": "R"}}}}`},
			Sidecar{LastError: twice(status, "/result/bundles/hcp")}},
		{"result twice", map[string]string{status: `{"result": {"bundles": {}}, "result": {"bundles": {"hcp": {"active_revision": "R"}}}}`},
			Sidecar{LastError: twice(status, "/result")}},
		{"a name twice in another bundle", map[string]string{status: `{"result": {"bundles": {"hcp": {"active_revision": "R"}, "other": {"code": "a", "code": "b"}}}}`},
			Sidecar{LastError: twice(status, "/result/bundles/other/code")}},
		{"the manifest's revision in another case", withData(`{"result": {"manifest": {"revision": "OLD", "Revision": "R"}}}`),
			Sidecar{Revision: "OLD", Reachable: true}},
		{"the manifest in another case", withData(`{"result": {"Manifest": {"revision": "R"}}}`),
			Sidecar{Reachable: true}},
		{"the manifest's revision twice", withData(`{"result": {"manifest": {"revision": "OLD", "revision": "R"}}}`),
			Sidecar{LastError: twice("/v1/data/system/bundles/hcp", "/result/manifest/revision")}},
		{"health's error twice", map[string]string{data: `{"result": {"manifest": {"revision": "R"}}}`, health: `{"error": "a", "error": "b"}`},
			Sidecar{Revision: "R", LastError: twice("/health", "/error")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, ok := tt.routes[r.URL.RequestURI()]
				switch {
				case !ok && r.URL.Path == status:
					w.WriteHeader(http.StatusInternalServerError)
					body = `{"code": "internal_error", "message": "status plugin not enabled"}`
				case !ok:
					w.WriteHeader(http.StatusNotFound)
					body = `{}`
				case r.URL.Path == "/health" && body != `{}`:
					w.WriteHeader(http.StatusInternalServerError)
				}
				w.Write([]byte(body))
			}))
			defer srv.Close()
			got := Client{Bundle: "hcp"}.Ask(context.Background(), []string{srv.URL})[0]
			want := tt.want
			want.URL, want.Source = srv.URL, got.Source
			if got != want {
				t.Errorf("%+v, want %+v", got, want)
			}
		})
	}
}
