package compile

import "testing"

// TestCheckedDropsTrees checks that a checked model no longer holds the
// parsed files, which only lint reads: a build carries half the heap
// without them.
func TestCheckedDropsTrees(t *testing.T) {
	m, err := Checked([]string{"../testdata/packs"}, []string{"../testdata/grants/acme.json", "../testdata/grants/defaults.json"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Packs) == 0 || len(m.Grants) == 0 {
		t.Fatal("the test model has no packs or no grants")
	}
	for _, p := range m.Packs {
		if p.policy != nil || p.manifest != nil || p.commands != nil || p.triggers != nil {
			t.Errorf("pack %s still holds its parsed files", p.ID)
		}
		for _, rows := range []map[string]*Row{p.Verbs, p.Stimuli} {
			for _, r := range rows {
				if r.node != nil {
					t.Errorf("row %s/%s still holds its node", p.ID, r.Key)
				}
			}
		}
	}
	for _, g := range m.Grants {
		if g.node != nil {
			t.Errorf("grant %s still holds its node", g.Source())
		}
	}
}
