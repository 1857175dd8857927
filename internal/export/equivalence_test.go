package export

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/matrix"
)

func exampleMatrix(t *testing.T, tenant string) *matrix.Matrix {
	t.Helper()
	m, err := compile.Checked([]string{"../../testdata/packs"}, []string{"../../testdata/grants/acme.json", "../../testdata/grants/defaults.json"})
	if err != nil {
		t.Fatal(err)
	}
	mx, err := matrix.Compute(context.Background(), m, matrix.Options{Tenant: tenant})
	if err != nil {
		t.Fatal(err)
	}
	return mx
}

// TestEquivalence: for every subject of the example packs (without a
// tenant and for tenant acme) and every harness, the file read back as the
// harness reads it gives the matrix's disposition for every tool it
// expresses, and every tool it does not express is named in an unwritten
// note. Ask is never read back as allow.
func TestEquivalence(t *testing.T) {
	for _, tenant := range []string{"", "acme"} {
		mx := exampleMatrix(t, tenant)
		for _, subject := range mx.Subjects {
			for _, h := range Harnesses {
				t.Run(tenant+"/"+subject+"/"+string(h), func(t *testing.T) {
					checkEquivalent(t, mx, subject, h, "my-hub")
				})
			}
		}
	}
}

func checkEquivalent(t *testing.T, mx *matrix.Matrix, subject string, h Harness, server string) {
	f, err := Export(mx, subject, h, server)
	if err != nil {
		t.Fatal(err)
	}
	tools, _, err := ToolsOf(mx, subject)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(tools))
	for i, tool := range tools {
		names[i] = tool.Name
	}
	unwritten := map[string]bool{}
	for _, n := range f.Notes {
		if n.Tool != "" && !slices.Contains(names, n.Tool) {
			t.Errorf("note on unknown tool %q", n.Tool)
		}
		unwritten[n.Tool] = unwritten[n.Tool] || n.Unwritten
	}
	got := readBack(t, h, server, f.Data, names)
	for _, tool := range tools {
		want, read := tool.Disposition, got[tool.Name]
		switch {
		case want == matrix.Ask && read == matrix.Allow:
			t.Errorf("%s: ask read back as allow", tool.Name)
		case unwritten[tool.Name] && read == want:
			t.Errorf("%s: noted as unwritten, but the file expresses %s", tool.Name, want)
		case !unwritten[tool.Name] && read != want:
			t.Errorf("%s: matrix %s, file reads %s, and no note says it is unwritten", tool.Name, want, read)
		}
	}
}

// TestUnwritten pins which tools each harness leaves unwritten for two
// subjects, so that the equivalence test above is known to cover both
// kinds of note.
func TestUnwritten(t *testing.T) {
	denied := []string{"transfer", "connect", "mail.connect", "files.read", "files.write", "files.purge", "release.publish"}
	for _, tc := range []struct {
		tenant, subject string
		harness         Harness
		want            []string
	}{
		{"", "role:member", ClaudeCode, nil},
		{"", "role:member", Codex, []string{"notes.create"}},
		{"", "role:member", OpenCode, nil},
		{"", "role:member", Gemini, nil},
		{"", "role:member", Cursor, denied},
		{"acme", "role:dev", Codex, []string{"files.write"}},
	} {
		f, err := Export(exampleMatrix(t, tc.tenant), tc.subject, tc.harness, DefaultServer)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range f.Notes {
			if n.Unwritten {
				got = append(got, n.Tool)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s %s: unwritten %q, want %q", tc.tenant, tc.subject, tc.harness, got, tc.want)
		}
	}
}
