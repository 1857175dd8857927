package fleet

import (
	"context"
	"testing"
)

// TestAbsentBundle asks sidecars that have no bundle "hcp" (OPA answers
// no result for it, and is healthy): the row names the bundles each has,
// and the --bundle to pass when it has one. `opa run --bundle
// cal.tar.gz` names its bundle so.
func TestAbsentBundle(t *testing.T) {
	const many = `{"result": {"g": {}, "f": {}, "e": {}, "d": {}, "c": {}, "b": {}, "a": {}}}`
	tests := []struct {
		name, list string
		want       string
	}{
		{"one, by its path", `{"result": {"cal.tar.gz": {"manifest": {"revision": "r7"}}}}`,
			`no bundle "hcp" here: the sidecar has one, "cal.tar.gz" (opa run --bundle PATH names a bundle by its path): pass --bundle cal.tar.gz`},
		{"one a shell would split", `{"result": {"my bundle\n": {}}}`,
			`no bundle "hcp" here: the sidecar has one, "my bundle\n" (opa run --bundle PATH names a bundle by its path): pass --bundle with that name`},
		{"many", many, `no bundle "hcp" here: the sidecar has "a", "b", "c", "d", "e" and 2 more: pass --bundle with the name of ours`},
		{"none", `{"result": {}}`, `no bundle "hcp" here: the sidecar has no bundle active`},
		{"no listing", "", `no bundle "hcp" here (its bundles could not be listed: GET /v1/data/system/bundles answered 404 Not Found)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			routes := map[string]string{"/v1/data/system/bundles/hcp": `{}`, "/health?bundles": `{}`}
			if tt.list != "" {
				routes["/v1/data/system/bundles"] = tt.list
			}
			srv, _ := countingSidecar(t, routes)
			got := Client{Bundle: "hcp"}.Ask(context.Background(), []string{srv.URL})[0]
			want := Sidecar{URL: srv.URL, LastError: tt.want, Reachable: true, Source: "bundles"}
			if got != want {
				t.Errorf("%+v\nwant %+v", got, want)
			}
		})
	}
}
