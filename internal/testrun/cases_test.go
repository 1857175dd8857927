package testrun

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// caseTree writes files (path → contents) under a temporary folder and
// changes into it.
func caseTree(t *testing.T, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	treetest.Write(t, dir, files)
	t.Chdir(dir)
}

// withPaths adds a pack folder and a grant file for case files to name.
func withPaths(files map[string]string) map[string]string {
	files["packs/ledger/policy.json"] = "{}"
	files["grants/acme.json"] = `{"grants": []}`
	return files
}

func TestLoadCaseFile(t *testing.T) {
	caseTree(t, withPaths(map[string]string{"cases/ok.cases.yaml": `packs: [../packs/ledger]
grants: [../grants/acme.json]
cases:
  - name: first
    input: { principal: { id: bob }, pack_id: ledger, verb_key: balance }
    want: { code: allowed }
  - name: second
    input: 7
    want: { allow: false, reasons: [] }
    ext: { deny: [frozen] }
`}))
	cf, err := LoadCaseFile("cases/ok.cases.yaml", document.NewBudget(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join("packs", "ledger")}; !reflect.DeepEqual(cf.Packs, want) {
		t.Errorf("packs %v, want %v", cf.Packs, want)
	}
	if want := []string{filepath.Join("grants", "acme.json")}; !reflect.DeepEqual(cf.Grants, want) {
		t.Errorf("grants %v, want %v", cf.Grants, want)
	}
	if len(cf.Cases) != 2 {
		t.Fatalf("%d cases, want 2", len(cf.Cases))
	}
	first, second := cf.Cases[0], cf.Cases[1]
	if first.Name != "first" || first.Pos != (problem.Pos{Line: 4, Col: 5}) || first.Ext != nil {
		t.Errorf("first case %q at %v ext %v", first.Name, first.Pos, first.Ext)
	}
	if second.Pos != (problem.Pos{Line: 7, Col: 5}) || !reflect.DeepEqual(second.Ext, &Ext{Deny: []string{"frozen"}, Confirm: []string{}}) {
		t.Errorf("second case at %v ext %+v", second.Pos, second.Ext)
	}
	if got := compact(second.Input); got != "7" {
		t.Errorf("input %s, want 7", got)
	}
}

func TestCaseFileDefaults(t *testing.T) {
	caseTree(t, map[string]string{"a.cases.json": `{"grants": [], "cases": [{"name": "x", "input": {}, "want": {"code": "invalid_input"}}]}`})
	cf, err := LoadCaseFile("a.cases.json", document.NewBudget(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cf.Packs != nil || cf.Grants == nil || len(cf.Grants) != 0 {
		t.Errorf("packs %#v (want nil: all found), grants %#v (want empty: none)", cf.Packs, cf.Grants)
	}
}

func TestCaseFileErrors(t *testing.T) {
	tests := []struct {
		name, file, text, want string
	}{
		{
			name: "schema violations, every one",
			file: "c.cases.yaml",
			text: "packs: ../packs/ledger\ncases:\n  - name: a\n    input: {}\n    want: { alow: true, code: alowed }\n    expect: {}\n  - name: b\n    want: {}\n",
			want: "c.cases.yaml:1:8: packs: must be an array, got a string\n" +
				"c.cases.yaml:5:13: unknown field \"alow\" in cases[0].want\n" +
				"c.cases.yaml:5:31: cases[0].want.code: unknown value \"alowed\", want \"invalid_input\", \"unknown_command\", \"pack_unavailable\", \"tenant_unavailable\", \"capability_required\", \"land_denied\", \"runtime_denied\", \"confirm_required\", \"allowed\" or null\n" +
				"c.cases.yaml:6:5: unknown field \"expect\" in cases[0]\n" +
				"c.cases.yaml:7:5: missing field \"input\" in cases[1]\n" +
				"c.cases.yaml:8:11: cases[1].want: want at least one field of the decision: an empty want cannot fail",
		},
		{
			name: "no cases",
			file: "c.cases.yaml",
			text: "cases: []\n",
			want: "c.cases.yaml:1:8: cases: must not be empty",
		},
		{
			name: "paths that name nothing, or the same thing twice",
			file: "cases/c.cases.yaml",
			text: "packs: [../packs/ledgr, ../packs/ledger, ../packs/./ledger, ../grants]\ngrants: [../grants/acme.json, ../grants/none.json, ../packs]\ncases: [{name: a, input: {}, want: {allow: false}}]\n",
			want: "cases/c.cases.yaml:1:9: packs[0]: \"../packs/ledgr\": no pack at packs/ledgr (no policy.json there)\n" +
				"cases/c.cases.yaml:1:42: packs[2]: \"../packs/./ledger\" names packs/ledger again (first at 1:25)\n" +
				"cases/c.cases.yaml:1:61: packs[3]: \"../grants\": no pack at grants (no policy.json there)\n" +
				"cases/c.cases.yaml:2:31: grants[1]: \"../grants/none.json\": no such file grants/none.json\n" +
				"cases/c.cases.yaml:2:52: grants[2]: \"../packs\": packs is a folder, want a grant file",
		},
		{
			name: "duplicate case names",
			file: "c.cases.yaml",
			text: "cases:\n  - {name: a, input: {}, want: {allow: false}}\n  - {name: a, input: {}, want: {allow: true}}\n",
			want: "c.cases.yaml:3:12: cases[1]: duplicate case name \"a\" (first at 2:12)",
		},
		{
			name: "YAML duplicate key",
			file: "c.cases.yml",
			text: "cases:\n  - name: a\n    input: {}\n    want: {allow: false}\n    want: {allow: true}\n",
			want: "c.cases.yml:5:5: duplicate key \"want\" (first at 4:5)",
		},
		{
			name: "JSON case files are strict JSON",
			file: "c.cases.json",
			text: "{\"cases\": [],}",
			want: "c.cases.json:1:14: invalid JSON: invalid character '}' looking for beginning of object key string",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caseTree(t, withPaths(map[string]string{tt.file: tt.text}))
			_, err := LoadCaseFile(tt.file, document.NewBudget(), nil)
			if err == nil {
				t.Fatal("loaded, want errors")
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestCaseFileExtPaths reads a case file's ext paths as eval --ext reads
// them, and names each problem at its place: a path that is not there, a
// module outside hcp.ext, and a case's own reasons beside the file's rules.
func TestCaseFileExtPaths(t *testing.T) {
	caseTree(t, withPaths(map[string]string{
		"rt/_hidden/deny.rego":  "package hcp.ext\n\ndeny contains \"hidden\"\n",
		"bad/authz.rego":        "package hcp.authz\n\ndecision := {}\n",
		"cases/ok.cases.yaml":   "packs: [../packs/ledger]\next: [../rt]\ncases:\n  - name: a\n    input: 1\n    want: { code: invalid_input }\n",
		"cases/bad.cases.yaml":  "packs: [../packs/ledger]\next: [../nowhere, ../bad]\ncases:\n  - name: a\n    input: 1\n    want: { code: invalid_input }\n",
		"cases/out.cases.yaml":  "packs: [../packs/ledger]\next: [../bad]\ncases:\n  - name: a\n    input: 1\n    want: { code: invalid_input }\n",
		"cases/both.cases.yaml": "packs: [../packs/ledger]\next: [../rt]\ncases:\n  - name: a\n    input: 1\n    want: { code: invalid_input }\n    ext: { deny: [x] }\n",
	}))
	cf, err := LoadCaseFile("cases/ok.cases.yaml", document.NewBudget(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cf.Ext) != 1 || !reflect.DeepEqual(cf.ExtPaths, []string{"rt"}) {
		t.Errorf("ext %d modules from %v, want 1 from [rt]", len(cf.Ext), cf.ExtPaths)
	}
	for file, want := range map[string]string{
		"cases/bad.cases.yaml":  "cases/bad.cases.yaml:2:7: ext[0]: \"../nowhere\": no such file or folder",
		"cases/both.cases.yaml": "cases/both.cases.yaml:4:5: case \"a\" sets ext reasons, but the file loads the runtime's rules (ext paths): give one or the other",
	} {
		_, err := LoadCaseFile(file, document.NewBudget(), nil)
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", file, err, want)
		}
	}
	if _, err := LoadCaseFile("cases/out.cases.yaml", document.NewBudget(), nil); err == nil || !strings.HasPrefix(err.Error(), filepath.Join("bad", "authz.rego")+":1:") {
		t.Errorf("a module outside hcp.ext: error %v, want one at bad/authz.rego:1", err)
	}
}
