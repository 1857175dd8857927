package compile

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// TestCheckedDropsTrees checks that a checked model no longer holds the
// parsed files, which only lint reads: a build carries half the heap
// without them. (A grant never holds its tree: see
// TestGrantFileCostsAsManyBytesAGrant.)
func TestCheckedDropsTrees(t *testing.T) {
	m, err := Checked([]string{"../testdata/packs"}, []string{"../testdata/grants/acme.json", "../testdata/grants/defaults.json"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Packs()) == 0 || len(m.Grants()) == 0 {
		t.Fatal("the test model has no packs or no grants")
	}
	for _, p := range m.Packs() {
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
}

// shopSources writes one pack of one command and a grant file with a grant
// on another pack and one on a command the pack lacks, and reads them.
func shopSources(t *testing.T) *Sources {
	t.Helper()
	dir := t.TempDir()
	treetest.Write(t, dir, map[string]string{
		"shop/manifest.json": `{"id": "shop", "commands": {"browse": {}}}`,
		"shop/policy.json":   `{"surface_id": "shop", "verbs": {"browse": {"operation": "read", "privacy": {"land": "personal"}}}}`,
		"grants.json": `{"grants": [
  {"subject": "role:buyer", "pack_id": "mall", "capabilities": ["verb.exec.read"]},
  {"subject": "role:buyer", "pack_id": "shop", "verb_key": "buy", "capabilities": ["verb.exec.read"]}
]}`,
	})
	t.Chdir(dir)
	s := Load([]string{"shop"}, []string{"grants.json"})
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCheckLintsAllButInertGrants checks that Check holds every grant to
// lint but those the run calls inert, which it still compiles.
func TestCheckLintsAllButInertGrants(t *testing.T) {
	s := shopSources(t)
	if _, err := s.Check(); err == nil || !strings.Contains(err.Error(), `pack "mall" not in the compiled packs`) || !strings.Contains(err.Error(), `verb "buy" not in policy`) {
		t.Fatalf("Check: %v, want both grants' findings", err)
	}
	s = shopSources(t)
	s.Inert(func(g *Grant) bool { return s.Pack(g.PackID) == nil })
	_, err := s.Check()
	if err == nil || strings.Contains(err.Error(), "mall") || !strings.Contains(err.Error(), `grants.json:3:`) {
		t.Fatalf("Check with grants on absent packs inert: %v, want the finding on the grant on shop alone", err)
	}
}

// TestCheckRefusesMissingPacks checks that sources marked as missing packs
// give no model, even when nothing in them is wrong: their grants could
// not be checked against the packs.
func TestCheckRefusesMissingPacks(t *testing.T) {
	s := shopSources(t)
	s.Inert(func(*Grant) bool { return true })
	if _, err := s.Check(); err != nil {
		t.Fatalf("clean sources: %v", err)
	}
	s = shopSources(t)
	s.Inert(func(*Grant) bool { return true })
	s.MarkPacksMissing()
	if m, err := s.Check(); m != nil || err == nil {
		t.Fatalf("sources missing packs: model %v, error %v; want no model", m, err)
	}
}

// TestCheckSpendsTheSources checks that a second Check gives the same
// model and that the checked model does not change with the sources.
func TestCheckSpendsTheSources(t *testing.T) {
	s := shopSources(t)
	s.Inert(func(*Grant) bool { return true })
	m, err := s.Check()
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.Check(); again != m || err != nil {
		t.Fatalf("second Check: %p, %v; want %p", again, err, m)
	}
	if err := s.Lint(); err != nil {
		t.Fatalf("Lint after Check: %v", err)
	}
	s.grants[0] = nil
	if m.Grants()[0] == nil {
		t.Fatal("the checked model changed with its sources")
	}
}

// TestPathsMustBeUTF8 checks that a pack folder or grant file whose path
// is not UTF-8 is refused, naming it: a decision names the policy file and
// the grant file as text (source.row, source.grant), where such a path
// could only be spelled otherwise (U+FFFD for the bytes), naming no file.
func TestPathsMustBeUTF8(t *testing.T) {
	dir := t.TempDir()
	pack := `{"id": "shop", "commands": {"browse": {}}}`
	policy := `{"surface_id": "shop", "verbs": {"browse": {"operation": "read", "privacy": {"land": "personal"}}}}`
	grants := `{"grants": [{"subject": "role:buyer", "pack_id": "shop", "capabilities": ["verb.exec.read"]}]}`
	treetest.Write(t, dir, map[string]string{
		"sh\xffop/manifest.json": pack, "sh\xffop/policy.json": policy, "g\xff.json": grants,
		"shop/manifest.json": pack, "shop/policy.json": policy, "grants.json": grants,
	})
	t.Chdir(dir)
	if err := Load([]string{"shop"}, []string{"grants.json"}).Err(); err != nil {
		t.Fatalf("UTF-8 paths: %v", err)
	}
	for _, tt := range []struct{ packs, grants []string }{
		{[]string{"sh\xffop"}, []string{"grants.json"}},
		{[]string{"shop"}, []string{"g\xff.json"}},
	} {
		err := Load(tt.packs, tt.grants).Err()
		if err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
			t.Errorf("Load(%q, %q): %v, want the path refused", tt.packs, tt.grants, err)
		}
	}
}

// TestLoadSharesOneBudget reads packs and grant files that each fit the
// budget of a run's values but together pass it. The run is refused alike
// whatever order the files were read in, and once: at the first value
// past the limit, counting the grant files, then each pack's
// manifest.json and policy.json, in the order given; the files after it
// are not read. 54 values fit a limit of 54.
func TestLoadSharesOneBudget(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	var packs, grants []string
	policy := func(id string) string {
		return `{"surface_id": "` + id + `", "verbs": {"browse": {"operation": "read", "privacy": {"land": "personal"}}}}` // 7 values
	}
	for _, id := range []string{"a", "b", "c"} {
		files[id+"/manifest.json"] = `{"id": "` + id + `", "commands": {"browse": {}}}`                                         // 4 values
		files[id+"/policy.json"] = policy(id)                                                                                   // 7
		files[id+".json"] = `{"grants": [{"subject": "default", "pack_id": "` + id + `", "capabilities": ["verb.exec.read"]}]}` // 7
		packs, grants = append(packs, id), append(grants, id+".json")
	}
	treetest.Write(t, dir, files)
	t.Chdir(dir)
	refused := func(limit int64, file string, at string) string {
		col := 1
		if at != "" {
			col = strings.Index(policy("a"), at) + 1
		}
		return fmt.Sprintf("%s:1:%d: more values than the limit of %d for the JSON files of one run", file, col, limit)
	}
	for _, tt := range []struct {
		limit int64
		want  []string
	}{
		{54, nil}, // 3 × 18 values
		// The grant files' 21 values and packs a and b's 22 fit, then c's
		// manifest: c's policy.json is refused at its 7th value.
		{53, []string{refused(53, "c/policy.json", `"personal"`)}},
		// a's policy.json is refused at its 6th value, and no file after
		// it is read.
		{30, []string{refused(30, "a/policy.json", `{"land"`)}},
		// c's manifest.json is refused at its 3rd value, and its policy
		// is not read.
		{45, []string{fmt.Sprintf("c/manifest.json:1:%d: more values than the limit of 45 for the JSON files of one run", strings.Index(files["c/manifest.json"], `{"browse"`)+1)}},
	} {
		// A parallel read meets the limit in another file from one run to
		// the next: the refusal must not follow it.
		for range 100 {
			packsRead, filesRead := loadAll(packs, grants, func() *document.Budget {
				return document.NewBudgetOf(document.Limits{JSON: tt.limit, File: 1 << 20, YAML: 1, Aliases: 1})
			}, nil)
			var got []string
			for _, r := range slices.Concat(errorsOf(filesRead), errorsOf(packsRead)) {
				got = append(got, strings.Split(r.Error(), "\n")...)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("54 values under a limit of %d: refused\n%s\nwant\n%s", tt.limit, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		}
	}
}

// errorsOf returns the errors of what loadAll read, in its order.
func errorsOf[T any](read []loaded[T]) []error {
	var errs []error
	for _, r := range read {
		if r.err != nil {
			errs = append(errs, r.err)
		}
	}
	return errs
}

// A grant file given twice is one grant file, and its path is cleaned.
func TestOpenReadsAGrantFileOnce(t *testing.T) {
	dir := t.TempDir()
	treetest.Write(t, dir, map[string]string{
		"shop/manifest.json": `{"id": "shop", "commands": {"browse": {}}}`,
		"shop/policy.json":   `{"surface_id": "shop", "verbs": {"browse": {"operation": "read", "privacy": {"land": "personal"}}}}`,
		"grants.json":        `{"grants": [{"subject": "role:buyer", "pack_id": "shop", "capabilities": ["verb.exec.read"]}]}`,
	})
	t.Chdir(dir)
	m := Open([]string{"./shop"}, []string{"./grants.json", "grants.json"})
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	if len(m.Grants()) != 1 {
		t.Errorf("%d grants, want 1", len(m.Grants()))
	}
	// Spelled alike in provenance: cleaned, as pack folders are.
	if got := []string{m.GrantFiles()[0], m.Packs()[0].PolicyFile}; !slices.Equal(got, []string{"grants.json", "shop/policy.json"}) {
		t.Errorf("paths %q", got)
	}
}
