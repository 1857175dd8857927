package matrix

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// load checks packs and grant files as every command does.
func load(t *testing.T, packs []string, grants ...string) *compile.Model {
	t.Helper()
	m, err := compile.Checked(packs, grants)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func seed004(t *testing.T) *compile.Model {
	return load(t, []string{"../../testdata/seed004"}, "../../testdata/seed004/grants.json")
}

func examples(t *testing.T) *compile.Model {
	return load(t, []string{"../../testdata/packs"}, "../../testdata/grants/acme.json", "../../testdata/grants/defaults.json")
}

func compute(t *testing.T, m *compile.Model, o Options) *Matrix {
	t.Helper()
	mx, err := Compute(context.Background(), m, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(mx.Anomalies) > 0 {
		t.Fatalf("anomalies: %v", mx.Anomalies)
	}
	return mx
}

// table is a matrix written compactly: a row's id, then one disposition a
// subject, in the matrix's subject order.
type table map[RowID][]Disposition

func checkMatrix(t *testing.T, mx *Matrix, subjects []string, order []RowID, want table) {
	t.Helper()
	if !reflect.DeepEqual(mx.Subjects, subjects) {
		t.Errorf("subjects = %q, want %q", mx.Subjects, subjects)
	}
	var got []RowID
	for _, r := range mx.Rows {
		got = append(got, r.RowID)
		for i, s := range subjects {
			if d := r.Cells[s]; d != want[r.RowID][i] {
				t.Errorf("%s, %s = %q, want %q", r.RowID, s, d, want[r.RowID][i])
			}
		}
		if len(r.Cells) != len(subjects) {
			t.Errorf("%s has %d cells, want %d", r.RowID, len(r.Cells), len(subjects))
		}
	}
	if !reflect.DeepEqual(got, order) {
		t.Errorf("rows = %v, want %v", got, order)
	}
}

var (
	search   = RowID{"hub", KindVerb, "documents.search"}
	check    = RowID{"hub", KindVerb, "buildsite.command_check"}
	dispatch = RowID{"hub", KindVerb, "case-gateway.dispatch"}
)

// TestSeed004 is the worked example of seed 004: the computed disposition
// table (Tool × Guest/Member/Administrator), plus the default column,
// which no grant names and so gets nothing.
func TestSeed004(t *testing.T) {
	subjects := []string{"role:guest", "role:member", "role:administrator", "default"}
	order := []RowID{search, check, dispatch}
	mx := compute(t, seed004(t), Options{})
	if mx.Mode != ModeAsk {
		t.Errorf("mode = %q, want ask", mx.Mode)
	}
	checkMatrix(t, mx, subjects, order, table{
		search:   {Allow, Allow, Allow, Deny},
		check:    {Deny, Allow, Allow, Deny},
		dispatch: {Deny, Ask, Ask, Deny},
	})
	// In mode run a confirm: true gate passes: the member's ask is allow.
	run := compute(t, seed004(t), Options{Mode: ModeRun})
	checkMatrix(t, run, subjects, order, table{
		search:   {Allow, Allow, Allow, Deny},
		check:    {Deny, Allow, Allow, Deny},
		dispatch: {Deny, Allow, Allow, Deny},
	})
	if run.Rows[0].Operation != "read" || run.Rows[2].Operation != "write" {
		t.Errorf("operations = %q, %q, want read, write", run.Rows[0].Operation, run.Rows[2].Operation)
	}
}

func TestSubjectsPicked(t *testing.T) {
	mx := compute(t, seed004(t), Options{Subjects: []string{"default", "role:member"}})
	checkMatrix(t, mx, []string{"default", "role:member"}, []RowID{search, check, dispatch}, table{
		search:   {Deny, Allow},
		check:    {Deny, Allow},
		dispatch: {Deny, Ask},
	})
}

func TestBadOptions(t *testing.T) {
	m := seed004(t)
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"mode", Options{Mode: "auto"}, `mode "auto": want ask or run`},
		{"subject", Options{Subjects: []string{"role:"}}, `subject "role:": want principal:ID, role:NAME or default`},
		{"bare", Options{Subjects: []string{"member"}}, `subject "member": want principal:ID, role:NAME or default`},
		{"twice", Options{Subjects: []string{"default", "default"}}, `subject "default" given twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compute(context.Background(), m, tc.o)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %s", err, tc.want)
			}
		})
	}
}

// TestSyntheticID: a role column's principal has an id that no grant names,
// so a principal: grant on the synthetic id's first choice does not leak
// into the role's column.
func TestSyntheticID(t *testing.T) {
	dir := t.TempDir()
	grants := filepath.Join(dir, "grants.json")
	writeFile(t, grants, `{"grants": [
		{"subject": "principal:hcp-rego-matrix", "pack_id": "hub", "capabilities": ["verb.exec.read"]},
		{"subject": "role:guest", "pack_id": "hub", "verb_key": "documents.search", "capabilities": ["verb.exec.read"]}
	]}`)
	m := load(t, []string{"../../testdata/seed004"}, grants)
	if id := unnamedID(principalIDs(m)); id != "hcp-rego-matrix-2" {
		t.Errorf("unnamedID = %q, want hcp-rego-matrix-2", id)
	}
	mx := compute(t, m, Options{})
	checkMatrix(t, mx, []string{"principal:hcp-rego-matrix", "role:guest", "default"}, []RowID{search, check, dispatch}, table{
		search:   {Allow, Allow, Deny},
		check:    {Allow, Deny, Deny},
		dispatch: {Deny, Deny, Deny},
	})
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDispositionOf(t *testing.T) {
	for _, tc := range []struct {
		name     string
		decision map[string]any
		want     Disposition
		expected bool
	}{
		{"allowed", map[string]any{"allow": true, "code": "allowed"}, Allow, true},
		{"confirm", map[string]any{"allow": false, "code": "confirm_required"}, Ask, true},
		{"capability", map[string]any{"allow": false, "code": "capability_required"}, Deny, true},
		{"land", map[string]any{"allow": false, "code": "land_denied"}, Deny, false},
		{"runtime", map[string]any{"allow": false, "code": "runtime_denied"}, Deny, false},
		{"unknown", map[string]any{"allow": false, "code": "unknown_command"}, Deny, false},
		{"unavailable", map[string]any{"allow": false, "code": "pack_unavailable"}, Deny, false},
		{"invalid", map[string]any{"allow": false, "code": "invalid_input"}, Deny, false},
		{"allowed without allow", map[string]any{"code": "allowed"}, Deny, false},
		{"allow true, other code", map[string]any{"allow": true, "code": "confirm_required"}, Deny, false},
		{"no code", map[string]any{"allow": true}, Deny, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _, ok := DispositionOf(hcprego.DecisionOf(tc.decision))
			if d != tc.want || ok != tc.expected {
				t.Fatalf("DispositionOf = %q, %v; want %q, %v", d, ok, tc.want, tc.expected)
			}
		})
	}
}
