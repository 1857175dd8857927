package main

import "testing"

// TestWantedSteps holds -only to its list: the tables it names and no
// other, the builds table run unprinted only for a table that measures
// its bundles, and a name of no table refused.
func TestWantedSteps(t *testing.T) {
	wanted, err := wantedSteps("rest,embedded")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if want := s.name == "rest" || s.name == "embedded"; wanted[s.name] != want {
			t.Errorf("-only rest,embedded: %s wanted %v", s.name, wanted[s.name])
		}
	}
	if !needBuilds(wanted) {
		t.Error("-only rest,embedded: the builds table must make their bundles")
	}
	if wanted, _ := wantedSteps("grants,sidecar"); needBuilds(wanted) {
		t.Error("-only grants,sidecar: they build their own sets; the builds table must not run")
	}
	if all, _ := wantedSteps(""); len(all) != len(steps) || !all["builds"] || !all["sidecar"] {
		t.Errorf("no -only: %v, want every table", all)
	}
	for _, bad := range []string{"nope", "rest,", "rest,nope"} {
		if _, err := wantedSteps(bad); err == nil {
			t.Errorf("-only %q: no error", bad)
		}
	}
}
