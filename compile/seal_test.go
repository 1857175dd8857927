package compile_test

import (
	"slices"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
)

// lists is what a model's or sources' accessors return, taken at once.
type lists struct {
	packs      []*compile.Pack
	grants     []*compile.Grant
	grantFiles []string
}

// holder is what Sources and Model both offer a caller to read their lists.
type holder interface {
	Packs() []*compile.Pack
	Grants() []*compile.Grant
	GrantFiles() []string
	Inputs() []string
}

// listsOf reads the lists through the accessors a caller has.
func listsOf(h holder) lists { return lists{h.Packs(), h.Grants(), h.GrantFiles()} }

// clone copies the lists, so that tampering with the lists does not touch
// the copy.
func (l lists) clone() lists {
	return lists{slices.Clone(l.packs), slices.Clone(l.grants), slices.Clone(l.grantFiles)}
}

// tamper does to what the accessors returned all a caller could: assign
// into each slice, append to it, reorder it.
func tamper(l lists) {
	l.packs[0] = nil
	l.grants[0] = nil
	l.grantFiles[0] = "tampered.json"
	_ = append(l.packs[:1], nil)
	_ = append(l.grants[:1], nil)
	_ = append(l.grantFiles[:1], "appended.json")
	slices.Reverse(l.grants)
}

// sameLists fails the test, there and then, when the lists h holds are
// not want, element by element, or its inputs are not inputs.
func sameLists(t *testing.T, what string, h holder, want lists, inputs []string) {
	t.Helper()
	got := listsOf(h)
	if !slices.Equal(got.packs, want.packs) {
		t.Errorf("%s: packs changed", what)
	}
	if !slices.Equal(got.grants, want.grants) {
		t.Errorf("%s: grants changed", what)
	}
	if !slices.Equal(got.grantFiles, want.grantFiles) {
		t.Errorf("%s: grant files changed: %q, want %q", what, got.grantFiles, want.grantFiles)
	}
	if t.Failed() {
		t.FailNow()
	}
	if !slices.Equal(h.Inputs(), inputs) {
		t.Fatalf("%s: inputs changed: %q, want %q", what, h.Inputs(), inputs)
	}
}

// TestModelIsSealed checks that a caller cannot change a checked model's
// lists through what its accessors return: assigning into, appending to or
// reordering the returned slices leaves the model, and what it compiles
// to, as it was. The same holds for the sources, and Check's model.
func TestModelIsSealed(t *testing.T) {
	const acme = "../testdata/grants/acme.json"
	s := compile.Open([]string{"../testdata/packs"}, []string{acme, "../testdata/grants/defaults.json"})
	sourced := listsOf(s)
	if len(sourced.packs) == 0 || len(sourced.grants) < 2 {
		t.Fatal("the test sources have no packs or fewer than two grants")
	}
	want, inputs := sourced.clone(), s.Inputs()
	tamper(sourced)
	sameLists(t, "sources after tampering", s, want, inputs)

	m, err := s.Check()
	if err != nil {
		t.Fatal(err)
	}
	sameLists(t, "checked model", m, want, inputs)
	before, err := compile.Compile(m, "")
	if err != nil {
		t.Fatal(err)
	}
	digest, ok := m.GrantDigest(acme)
	if !ok || digest == "" {
		t.Fatalf("GrantDigest(%s) = %q, %v", acme, digest, ok)
	}

	tamper(listsOf(m))
	sameLists(t, "model after tampering", m, want, inputs)
	if m.Pack(want.packs[0].ID) != want.packs[0] {
		t.Errorf("Pack(%q) changed", want.packs[0].ID)
	}
	if again, ok := m.GrantDigest(acme); !ok || again != digest {
		t.Errorf("GrantDigest(%s) = %q, %v after tampering, want %q", acme, again, ok, digest)
	}
	after, err := compile.Compile(m, "")
	if err != nil {
		t.Fatal(err)
	}
	if after.Manifest.Revision != before.Manifest.Revision || len(after.Modules) != len(before.Modules) {
		t.Errorf("the model compiles to revision %s (%d modules) after tampering, %s (%d modules) before",
			after.Manifest.Revision, len(after.Modules), before.Manifest.Revision, len(before.Modules))
	}
}
