package compare

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// cornerPair is the default rule's corner (docs/decisions.md item 4): OLD
// lets everyone read v1 by a default grant, and names role r2 by a grant
// on v2, so a holder of r2 gets no default grant and cannot read v1. NEW
// adds a grant of v1 to role r1. A holder of r1 alone read v1 before (by
// default) and still does; a holder of r2 alone could not and still
// cannot; a holder of both could not (r2 names it) and now can (r1 covers
// it). The change widens v1 for a principal holding two roles at once and
// for no principal holding one, which a matrix (one subject a cell) cannot
// see.
func cornerPair() (before, after repo) {
	before = repo{
		Packs: map[string]pack{"p1": {Verbs: map[string]row{
			"v1": {Operation: "read", Land: "personal"},
			"v2": {Operation: "read", Land: "personal"},
		}, Stimuli: map[string]row{}}},
		Grants: []grant{
			{Subject: "default", PackID: "p1", VerbKey: "v1", Capabilities: []string{compile.CapRead}},
			{Subject: "role:r2", PackID: "p1", VerbKey: "v2", Capabilities: []string{compile.CapRead}},
		},
	}
	after = before.clone()
	after.Grants = append(after.Grants, grant{Subject: "role:r1", PackID: "p1", VerbKey: "v1", Capabilities: []string{compile.CapRead}})
	return before, after
}

// TestTwoRolesCorner holds compare to the corner: v1 is wider, and its
// example is a principal holding both roles, which no single-role
// principal would be.
func TestTwoRolesCorner(t *testing.T) {
	b, a := cornerPair()
	dir := t.TempDir()
	before, after := b.model(t, filepath.Join(dir, "old")), a.model(t, filepath.Join(dir, "new"))
	r := checkAgainstBrute(t, before, after)
	if len(r.Findings) != 1 || r.Findings[0].Key.Key != "v1" || r.Findings[0].Verdict != Wider {
		t.Fatalf("findings %+v, want v1 wider alone", r.Findings)
	}
	ex := r.Findings[0].Wider
	if roles := ex.Call.Roles; !slices.Equal(roles, []string{"r1", "r2"}) {
		t.Errorf("the example's roles are %v, want r1 and r2", roles)
	}
	if ex.Old.Code != "capability_required" || ex.New.Code != "allowed" {
		t.Errorf("example decided %s → %s, want capability_required → allowed", ex.Old.Code, ex.New.Code)
	}
	// No principal of one role (or none) is decided more permissively.
	evOld, evNew := reference.New(before.Packs(), before.Grants()), reference.New(after.Packs(), after.Grants())
	for _, roles := range [][]any{{}, {"r1"}, {"r2"}, {"r3"}} {
		in := map[string]any{"principal": map[string]any{"id": "x", "roles": roles}, "pack_id": "p1", "verb_key": "v1", "owner": "x"}
		o, n := evOld.Decide(in, reference.Ext{})["code"], evNew.Decide(in, reference.Ext{})["code"]
		if o != n {
			t.Errorf("roles %v: %v → %v, want no change for a single role", roles, o, n)
		}
	}
}

// TestBruteForceFactoring holds the brute force's shortcut (one principal
// of each held pair decided in every context) to the unfactored product
// on the corner: every principal class in every context.
func TestBruteForceFactoring(t *testing.T) {
	if testing.Short() {
		t.Skip("every principal in every context: some 300,000 decisions")
	}
	b, a := cornerPair()
	dir := t.TempDir()
	before, after := b.model(t, filepath.Join(dir, "old")), a.model(t, filepath.Join(dir, "new"))
	evOld, evNew := reference.New(before.Packs(), before.Grants()), reference.New(after.Packs(), after.Grants())
	factored := bruteForce(t, before, after)
	for _, k := range keysOf(before, after) {
		var full bruteKey
		for _, p := range everyPrincipal() {
			for _, in := range everyContext(k, p) {
				o := dispositionOf(evOld.Decide(in, reference.Ext{})["code"].(string))
				n := dispositionOf(evNew.Decide(in, reference.Ext{})["code"].(string))
				full.wider = full.wider || n > o
				full.narrower = full.narrower || n < o
			}
		}
		if full != factored[k] {
			t.Errorf("%s: every class gives %+v, the factored brute force %+v", k.Key, full, factored[k])
		}
	}
}

// TestInputIsDocument: the input compare decides is the document it
// prints, for calls of every approval and land fact, of a command and a
// trigger, with and without a tenant and roles.
func TestInputIsDocument(t *testing.T) {
	for _, c := range []Call{
		{Key: Key{Pack: "p", Kind: compile.Verb, Key: "v"}, ID: "x", Lands: allLands, Approval: approveNothing},
		{Key: Key{Pack: "p", Kind: compile.Verb, Key: "v"}, ID: "someone-else", Tenant: "t", Roles: []string{"a", "b"}, Lands: 0, Approval: approveRun},
		{Key: Key{Pack: "p", Kind: compile.Stimulus, Key: "s"}, ID: "x", Roles: []string{"a"}, Lands: 2, Approval: approveConfirm},
	} {
		printed, err := json.Marshal(c.Document())
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]any
		if err := json.Unmarshal(printed, &want); err != nil {
			t.Fatal(err)
		}
		if got := c.Input(); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: decided\n%v\nprinted\n%v", c, got, want)
		}
	}
}

// TestAnalysesBounded: tenants that raise different numbers of subjects
// make many groups, but a key analyses each α-combo presence once: no
// more than 64 profiles beyond the tenant-less one and the tenants
// relevant to it, however many groups there are.
func TestAnalysesBounded(t *testing.T) {
	b := repo{Packs: map[string]pack{"p1": {Verbs: map[string]row{
		"v1": {Operation: "read", Land: "personal"},
		"v2": {Operation: "read", Land: "personal"},
	}, Stimuli: map[string]row{}}}}
	b.Grants = []grant{{Subject: "default", PackID: "p1", VerbKey: "v1", Capabilities: []string{compile.CapRead}}}
	a := b.clone()
	// Ids and roles named without a tenant in OLD alone; tenant i names
	// a different number of them in NEW.
	for j := range 20 {
		b.Grants = append(b.Grants, grant{Subject: fmt.Sprintf("principal:x%d", j), PackID: "p1", VerbKey: "v2", Capabilities: []string{compile.CapRead}})
	}
	for j := range 10 {
		b.Grants = append(b.Grants, grant{Subject: fmt.Sprintf("role:q%d", j), PackID: "p1", VerbKey: "v2", Capabilities: []string{compile.CapRead}})
	}
	for i := range 200 {
		tenant := fmt.Sprintf("t%d", i)
		for j := range i%10 + 1 {
			a.Grants = append(a.Grants, grant{Subject: fmt.Sprintf("role:q%d", j), Tenant: tenant, PackID: "p1", VerbKey: "v2", Capabilities: []string{compile.CapRead}})
		}
		for j := range i/10%20 + 1 {
			a.Grants = append(a.Grants, grant{Subject: fmt.Sprintf("principal:x%d", j), Tenant: tenant, PackID: "p1", VerbKey: "v2", Capabilities: []string{compile.CapRead}})
		}
	}
	dir := t.TempDir()
	before, after := b.model(t, filepath.Join(dir, "old")), a.model(t, filepath.Join(dir, "new"))
	u := newUniverse(before.Grants(), after.Grants())
	if len(u.groups) < 200 {
		t.Fatalf("%d groups, want 200 or more", len(u.groups))
	}
	scan := newKeyScan(u)
	for _, k := range keysOf(before, after) {
		capability := rowOf(before, k).Capability()
		scan.analyses = 0
		scan.pairs(k, capability, capability, false)
		if limit := 1 + 64 + len(scan.relevant); scan.analyses > limit {
			t.Errorf("%s: %d profiles analysed, want at most %d", k.Key, scan.analyses, limit)
		}
	}
}
