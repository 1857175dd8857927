package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/discover"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// compareChanges are pull requests on the example repository: each
// writes files into (or removes them from) NEW, a copy of the base.
var compareChanges = []struct {
	name   string
	write  map[string]string
	remove []string
}{
	{name: "default grants added", remove: []string{"grants/defaults.json"}}, // removed from the base: see comparePair
	{name: "a role covers what default gave, for holders of two roles", write: map[string]string{
		"grants/auditor.json": `{"grants": [{"subject": "role:auditor", "pack_id": "ledger", "verb_key": "balance", "capabilities": ["verb.exec.read"]}]}`}},
	{name: "a gate lowered, another raised", write: map[string]string{
		"packs/ledger/policy.json": `{
  "surface_id": "ledger",
  "version": 1,
  "verbs": {
    "transfer": { "operation": "write", "privacy": { "land": "personal" } },
    "balance":  { "operation": "read",  "privacy": { "land": "personal" } },
    "connect":  { "operation": "write", "privacy": { "land": "personal" }, "confirm": "always" }
  },
  "stimuli": {
    "payment_received": { "operation": "read", "privacy": { "land": "personal" } }
  }
}`}},
	{name: "a tenant's grants moved to every tenant, a pack dropped", write: map[string]string{
		"grants/acme.json": `{"grants": [
    { "subject": "role:member", "pack_id": "mail", "capabilities": ["verb.exec.read", "verb.exec.write"] },
    { "subject": "role:admin", "pack_id": "mail", "capabilities": ["pack.connect"] },
    { "subject": "principal:alice", "pack_id": "ledger", "verb_key": "transfer", "capabilities": ["verb.exec.write"] },
    { "subject": "role:member", "pack_id": "ledger", "verb_key": "balance", "capabilities": ["verb.exec.read"] }
  ]}`}, remove: []string{"packs/workspace"}},
}

// comparePair writes the base and the changed copy of the example
// repository into a new folder, and returns the folder; the change
// "default grants added" removes them from the base instead.
func comparePair(t *testing.T, i int) string {
	t.Helper()
	dir := t.TempDir()
	for _, side := range []string{"base", "new"} {
		treetest.CopyTree(t, "../../testdata/packs", filepath.Join(dir, side, "packs"))
		treetest.CopyTree(t, "../../testdata/grants", filepath.Join(dir, side, "grants"))
	}
	c := compareChanges[i]
	side := "new"
	if i == 0 {
		side = "base"
	}
	treetest.Write(t, filepath.Join(dir, "new"), c.write)
	for _, path := range c.remove {
		if err := os.RemoveAll(filepath.Join(dir, side, path)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// comparedKey is a key of compare's json format.
type comparedKey struct {
	PackID   string `json:"pack_id"`
	Kind     string `json:"kind"`
	Key      string `json:"key"`
	Verdict  string `json:"verdict"`
	Wider    *comparedExample
	Narrower *comparedExample
}

type comparedExample struct {
	Input    json.RawMessage `json:"input"`
	Old, New shownDecision
}

// shownDecision is what compare shows of a decision.
type shownDecision struct {
	Allow bool   `json:"allow"`
	Code  string `json:"code"`
	Row   string `json:"row"`
	Grant string `json:"grant"`
}

// shownOf is what compare would show of an eval's decision.
func shownOf(doc map[string]any) shownDecision {
	var d shownDecision
	d.Allow, _ = doc["allow"].(bool)
	d.Code, _ = doc["code"].(string)
	source, _ := doc["source"].(map[string]any)
	d.Row, _ = source["row"].(string)
	d.Grant, _ = source["grant"].(string)
	return d
}

// evalArgs are eval's arguments for a version: its packs and its grant
// files in the order compare found them.
func evalArgs(t *testing.T, dir string) []string {
	t.Helper()
	found, err := discover.Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"eval"}, found.Packs...)
	for _, g := range found.GrantFiles {
		args = append(args, "--grants", g)
	}
	return args
}

// TestCompareExamplesEvalReproduces runs compare on each change and
// decides every example's input with hcp-rego eval on each version: eval
// gives the decision the example shows (allow, code, row and grant), and
// the example is wider or narrower as it says.
func TestCompareExamplesEvalReproduces(t *testing.T) {
	for i, c := range compareChanges {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(comparePair(t, i))
			code, out, errOut := runTestCLI(t, "compare", "base", "new", "--format", "json")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var report struct{ Keys []comparedKey }
			if err := json.Unmarshal([]byte(out), &report); err != nil {
				t.Fatal(err)
			}
			examples := 0
			for _, k := range report.Keys {
				for way, ex := range map[string]*comparedExample{"wider": k.Wider, "narrower": k.Narrower} {
					if ex == nil {
						continue
					}
					examples++
					if err := os.WriteFile("input.json", ex.Input, 0o644); err != nil {
						t.Fatal(err)
					}
					old := evalDecision(t, "base")
					new := evalDecision(t, "new")
					if got := shownOf(old); got != ex.Old {
						t.Errorf("%s %s (%s) on base: eval gives %+v, compare shows %+v", k.PackID, k.Key, way, got, ex.Old)
					}
					if got := shownOf(new); got != ex.New {
						t.Errorf("%s %s (%s) on new: eval gives %+v, compare shows %+v", k.PackID, k.Key, way, got, ex.New)
					}
					if step := rank(new["code"]) - rank(old["code"]); (way == "wider") != (step > 0) || step == 0 {
						t.Errorf("%s %s (%s): eval gives %v → %v", k.PackID, k.Key, way, old["code"], new["code"])
					}
				}
			}
			if examples == 0 {
				t.Errorf("no example in %s", out)
			}
		})
	}
}

// evalDecision decides input.json with hcp-rego eval on the version in
// dir.
func evalDecision(t *testing.T, dir string) map[string]any {
	t.Helper()
	code, out, errOut := runTestCLI(t, append(evalArgs(t, dir), "--input", "input.json")...)
	if code != exitOK {
		t.Fatalf("eval on %s: exit %d: %s", dir, code, errOut)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func rank(code any) int {
	switch code {
	case "allowed":
		return 2
	case "confirm_required":
		return 1
	}
	return 0
}

// TestCompareExit: --fail-on wider exits 1 on a wider, mixed or callable
// added key, not on a narrower one; --fail-on change on any change; no
// change exits 0 under both; bad arguments and versions exit 2.
func TestCompareExit(t *testing.T) {
	t.Chdir(comparePair(t, 0))
	treetest.Write(t, "broken", map[string]string{"ledger/manifest.json": `{"id": "ledger", "commands": {"transfer": {}}}`,
		"ledger/policy.json": `{"surface_id": "ledger", "verbs": {"transfer": {"operation": "write", "privacy": {"land": "personal"}, "confrim": true}}}`})
	for _, tt := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"base", "new"}, exitOK, ""},
		{[]string{"base", "new", "--fail-on", "wider"}, exitFindings, ""},
		{[]string{"new", "base", "--fail-on", "wider"}, exitOK, ""},
		{[]string{"new", "base", "--fail-on", "change"}, exitFindings, ""},
		{[]string{"base", "base", "--fail-on", "change"}, exitOK, ""},
		{[]string{"base"}, exitBadInput, "compare takes two folders: OLD_DIR NEW_DIR\n"},
		{[]string{"base", "new", "--fail-on", "widen"}, exitBadInput, "--fail-on \"widen\": want wider or change\n"},
		{[]string{"base", "new", "--format", "table"}, exitBadInput, "--format \"table\": want pretty, markdown or json\n"},
		{[]string{"base", "gone"}, exitBadInput, "gone: no such folder\n"},
		{[]string{"base", "broken"}, exitBadInput, "broken/ledger/policy.json:1:104: unknown field \"confrim\" in verbs[\"transfer\"]\n"},
		{[]string{"base", "new", "--ext", "gone.rego"}, exitBadInput, "gone.rego: no such file or folder\n"},
	} {
		code, out, errOut := runTestCLI(t, append([]string{"compare"}, tt.args...)...)
		if code != tt.code || (tt.err != "" && errOut != tt.err) {
			t.Errorf("compare %q: exit %d, stderr %q; want exit %d, stderr %q", tt.args, code, errOut, tt.code, tt.err)
		}
		if tt.code == exitBadInput && out != "" {
			t.Errorf("compare %q: exit 2 with stdout %q", tt.args, out)
		}
	}
}
