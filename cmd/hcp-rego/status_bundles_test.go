package main

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/fleet"
)

// TestStatusWants reads --bundle and --want-revision as docs/fleet.md
// says: NAME=R names a --bundle's revision, any other value is the only
// bundle's, and what could be read two ways, or names a bundle twice, is
// refused.
func TestStatusWants(t *testing.T) {
	tests := []struct {
		bundles, want []string
		wants         []fleet.Want
		err           string
	}{
		{[]string{"hcp"}, nil, []fleet.Want{{Bundle: "hcp"}}, ""},
		{[]string{"hcp"}, []string{"r1"}, []fleet.Want{{Bundle: "hcp", Revision: "r1"}}, ""},
		{[]string{"hcp"}, []string{"hcp=r1"}, []fleet.Want{{Bundle: "hcp", Revision: "r1"}}, ""},
		{[]string{"hcp"}, []string{"a=b"}, []fleet.Want{{Bundle: "hcp", Revision: "a=b"}}, ""},
		{[]string{"hcp", "shard-1"}, []string{"shard-1=s1"}, []fleet.Want{{Bundle: "hcp"}, {Bundle: "shard-1", Revision: "s1"}}, ""},
		{[]string{"hcp", "shard-1"}, []string{"shard-1=s1", "hcp=p=2"}, []fleet.Want{{Bundle: "hcp", Revision: "p=2"}, {Bundle: "shard-1", Revision: "s1"}}, ""},
		{[]string{"hcp", "shard-1"}, []string{"r1"}, nil, "with several --bundle, name the bundle"},
		{[]string{"hcp", "shard-1"}, []string{"shard-2=s1"}, nil, "with several --bundle, name the bundle"},
		{[]string{"hcp", "shard-1"}, []string{"hcp=a", "hcp=b"}, nil, `two revisions wanted of bundle "hcp"`},
		{[]string{"hcp", "hcp"}, nil, nil, `--bundle "hcp" given twice`},
		{[]string{""}, nil, nil, `--bundle "": want a bundle's name`},
	}
	for _, tt := range tests {
		o := statusOptions{bundles: tt.bundles, wantRevision: tt.want, format: "table"}
		got, err := o.check()
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("--bundle %q --want-revision %q: error %v, want %q", tt.bundles, tt.want, err, tt.err)
		case tt.err == "" && (err != nil || !reflect.DeepEqual(got, tt.wants)):
			t.Errorf("--bundle %q --want-revision %q: %+v, %v; want %+v", tt.bundles, tt.want, got, err, tt.wants)
		}
	}
}

// TestStatusSeveralBundles asks a sidecar of a cell about its policy
// bundle and a shard: the JSON of one bundle keeps its shape (bundle,
// converged, sidecars), that of several is one such object a bundle, and
// the exit says whether every bundle runs the revision wanted of it.
func TestStatusSeveralBundles(t *testing.T) {
	opa := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"result": {"bundles": {"hcp": {"active_revision": "p1"}, "shard-1": {"active_revision": "s1"}}}}`))
	}))
	defer opa.Close()

	one := runInProcess(t, 0, "status", opa.URL, "--format", "json", "--want-revision", "p1")
	var shape map[string]json.RawMessage
	if err := json.Unmarshal([]byte(one.stdout), &shape); one.code != exitOK || err != nil {
		t.Fatalf("status of hcp: exit %d, %v\n%s%s", one.code, err, one.stdout, one.stderr)
	}
	if keys := slices.Sorted(maps.Keys(shape)); !slices.Equal(keys, []string{"bundle", "converged", "sidecars", "want_revision"}) {
		t.Errorf("status of one bundle prints the members %q, want those it always printed", keys)
	}

	for _, tt := range []struct {
		want string
		code int
	}{{"shard-1=s1", exitOK}, {"shard-1=s2", exitFindings}} {
		o := runInProcess(t, 0, "status", opa.URL, "--format", "json", "--bundle", "hcp", "--bundle", "shard-1", "--want-revision", tt.want)
		var got fleet.Reports
		if err := json.Unmarshal([]byte(o.stdout), &got); err != nil || o.code != tt.code {
			t.Fatalf("--want-revision %s: exit %d, %v\n%s%s", tt.want, o.code, err, o.stdout, o.stderr)
		}
		if len(got.Bundles) != 2 || got.Bundles[0].Bundle != "hcp" || got.Bundles[1].Bundle != "shard-1" ||
			got.Bundles[1].Sidecars[0].Revision != "s1" || got.Bundles[1].Converged != (tt.code == exitOK) || got.Converged != (tt.code == exitOK) {
			t.Errorf("--want-revision %s: %+v", tt.want, got)
		}
	}
	table := runInProcess(t, 0, "status", opa.URL, "--bundle", "hcp", "--bundle", "shard-1")
	if !strings.Contains(table.stdout, "BUNDLE") || !strings.Contains(table.stdout, "shard-1") || table.code != exitOK {
		t.Errorf("table of two bundles: exit %d\n%s%s", table.code, table.stdout, table.stderr)
	}
}
