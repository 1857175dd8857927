package integration

import (
	"reflect"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// extDataDir is a runtime bundle whose rules read data of its own, kept
// at a root outside hcp (docs/bundles.md): roots hcp/ext and runtime_data.
const extDataDir = "../testdata/ext-data"

// TestRuntimeDataOutsideHCP polls, beside our bundle, a runtime bundle
// whose hcp.ext rules read data.runtime_data, as docs/bundles.md shows
// it: OPA activates both (their roots do not overlap), the runtime's rule
// denies the call its data names and leaves the others alone, and it
// still does once a new revision of ours has replaced the first.
func TestRuntimeDataOutsideHCP(t *testing.T) {
	t.Parallel()
	ext, err := bundles.Read(extDataDir, nil, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if roots := *ext.Manifest.Roots; !reflect.DeepEqual(roots, []string{"hcp/ext", "runtime_data"}) {
		t.Fatalf("the runtime bundle's roots are %v", roots)
	}
	extData, err := bundles.Encode(ext)
	if err != nil {
		t.Fatal(err)
	}
	hub := newBundleServer(t)
	hub.set("/bundles/ext.tar.gz", extData)
	hub.set("/bundles/hcp.tar.gz", readFile(t, buildFile(t, exampleModel(t, acme, defaults), "r1", nil)))
	s := startOPA(t, "--config-file", sidecarConfig(t, hub.URL, []string{"hcp", "ext"}, nil))
	s.waitHealthy(t)

	// bob's account is frozen in the runtime's data; carol's is not.
	bob := `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "verb_key": "mail.list", "owner": "bob"}`
	for _, rev := range []string{"r1", "r2"} {
		if rev == "r2" {
			hub.set("/bundles/hcp.tar.gz", readFile(t, buildFile(t, exampleModel(t, acme, defaults), "r2", nil)))
			s.waitFor(t, "revision r2", pollTimeout, func() bool { return s.revision(t, "hcp") == "r2" })
		}
		doc, _ := s.query(t, "hcp/authz/decision", decode(t, bob)).(map[string]any)
		if doc["code"] != "runtime_denied" || !reflect.DeepEqual(doc["reasons"], []any{"account frozen by billing"}) {
			t.Errorf("%s: bob's call: %s, want runtime_denied for the frozen account", rev, text(doc))
		}
		if code := s.code(t, carol); code != "allowed" {
			t.Errorf("%s: carol's call: %s, want allowed: the runtime's data names only bob", rev, code)
		}
	}
	if frozen := s.get(t, "runtime_data/frozen/bob"); !reflect.DeepEqual(frozen, []any{"account frozen by billing"}) {
		t.Errorf("data.runtime_data.frozen.bob is %v", frozen)
	}
}
