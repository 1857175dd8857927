package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/testrun"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// hiddenExt is a runtime's rules folder whose rules sit under names that
// start with "_" or ".", files and folders, nested too
// (docs/decisions.md#evaluating-one-call-eval: --ext
// loads every .rego file that OPA's loader loads). Each rule gives its own
// reason, so that a decision names every file that was loaded. It is a
// runtime bundle (its .manifest has root hcp/ext) and a plain folder alike.
var hiddenExt = map[string]string{
	".manifest":               `{"revision": "ext-hidden", "roots": ["hcp/ext"], "rego_version": 1}`,
	"hcp/ext/ext.rego":        "package hcp.ext\n\ndeny contains \"frozen\" if input.runtime.frozen\n",
	"hcp/ext/_deny.rego":      ledgerDeny("an underscore file"),
	"hcp/.deny.rego":          ledgerDeny("a dot file"),
	".d/deny.rego":            ledgerDeny("a dot folder"),
	"_d/x/.y/deny.rego":       ledgerDeny("nested folders"),
	"..2026_11_30/deny.rego":  ledgerDeny("a ConfigMap's timestamped folder"),
	".a/_b/confirm.rego":      "package hcp.ext\n\nconfirm contains \"a nested confirm\" if input.pack_id == \"mail\"\n",
	"_notes/README.md":        "not a rule\n",
	".git/hooks/pre-commit.x": "not a rule either\n",
}

func ledgerDeny(reason string) string {
	return "package hcp.ext\n\ndeny contains \"" + reason + "\" if input.pack_id == \"ledger\"\n"
}

// hiddenExtCalls are calls that the example grants allow, each meeting a
// different part of hiddenExt: the ledger denies, mail asks first, and
// the workspace is left alone.
var hiddenExtCalls = []struct {
	name, input, code string
	reasons           []any
}{
	{"denied by every hidden deny", `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "ledger", "verb_key": "balance", "owner": "bob"}`, "runtime_denied",
		[]any{"a ConfigMap's timestamped folder", "a dot file", "a dot folder", "an underscore file", "nested folders"}},
	{"gated by a hidden confirm", `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "verb_key": "mail.list", "owner": "bob"}`, "confirm_required",
		[]any{"a nested confirm"}},
	{"no runtime rule fires", `{"principal": {"id": "eve", "tenant": "acme", "roles": ["dev"]}, "pack_id": "workspace", "verb_key": "files.write", "dry_run": true, "workspace": {"root": "/home/eve/proj", "paths": ["/home/eve/proj/out.txt"]}}`, "allowed",
		[]any{}},
}

// TestExtAgreesWithOPA gives the folder hiddenExt to `opa run --server`
// beside our bundle, as a runtime bundle and as plain files, and to the
// embedded evaluator through rego.ReadExt (what `eval --ext` reads): every
// decision is the same, so no rule the sidecar loads is left out locally.
// A case file of `hcp-rego test` that names the folder in its ext gets
// the same decisions, and so does one whose cases' ext holds the reasons
// that OPA's data.hcp.ext.deny and confirm gave.
func TestExtAgreesWithOPA(t *testing.T) {
	t.Parallel()
	// Absolute paths, so that the decisions' source paths are those the
	// case file's run gives too.
	packDirs := absAll(t, packs+"/ledger", packs+"/mail", packs+"/workspace")
	grants := absAll(t, acme, defaults)
	m, err := compile.Checked(packDirs, grants)
	if err != nil {
		t.Fatal(err)
	}
	tarball := buildFile(t, m, "", nil)
	ext := filepath.Join(t.TempDir(), "ext")
	treetest.Write(t, ext, hiddenExt)

	opts, err := hcprego.ReadExt([]string{ext}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundles.Read(tarball, nil, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := hcprego.New(context.Background(), b, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []struct {
		name     string
		args     []string
		revision string // the folder's bundle revision in OPA, "" when it is no bundle
	}{
		{"runtime bundle", []string{"--bundle", tarball, ext}, "ext-hidden"},
		{"plain files", []string{tarball, ext}, ""}, // without --bundle a .tar.gz is still a bundle, the folder is not
	} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			s := startOPA(t, mode.args...)
			s.waitHealthy(t)
			if rev := bundleRevision(s.get(t, "system/bundles"), ext); rev != mode.revision {
				t.Fatalf("the folder's bundle revision is %q, want %q: OPA did not load it as meant", rev, mode.revision)
			}
			var cases []map[string]any
			for _, c := range hiddenExtCalls {
				input := decode(t, c.input)
				opa := normal(s.query(t, "hcp/authz/decision", input))
				res, err := ev.Decide(context.Background(), input)
				if err != nil {
					t.Fatal(err)
				}
				if got := normal(res.Decision.Doc); !reflect.DeepEqual(got, opa) {
					t.Errorf("%s: decisions differ\n      OPA: %s\n  --ext: %s", c.name, text(opa), text(got))
				}
				if doc := opa.(map[string]any); doc["code"] != c.code || !reflect.DeepEqual(doc["reasons"], c.reasons) {
					t.Errorf("%s: OPA decides %v for %s, want %s for %q", c.name, doc["code"], text(doc["reasons"]), c.code, c.reasons)
				}
				cases = append(cases, map[string]any{
					"name":  c.name,
					"input": input,
					"ext":   map[string]any{"deny": s.query(t, "hcp/ext/deny", input), "confirm": s.query(t, "hcp/ext/confirm", input)},
					"want":  map[string]any{"code": c.code, "reasons": c.reasons},
				})
			}
			checkCaseFile(t, packDirs, grants, nil, cases, s)
			// The same folder named by the case file itself, as
			// `eval --ext` takes it: the cases set no reasons of their own.
			var folderCases []map[string]any
			for _, c := range cases {
				folderCases = append(folderCases, map[string]any{"name": c["name"], "input": c["input"], "want": c["want"]})
			}
			checkCaseFile(t, packDirs, grants, []string{ext}, folderCases, s)
		})
	}
}

// checkCaseFile runs a case file of cases against packDirs and grants,
// with the runtime's rules at ext when it names any, with `hcp-rego
// test`'s runner: each case passes, and its decision is the one s gives
// for its input.
func checkCaseFile(t *testing.T, packDirs, grants, ext []string, cases []map[string]any, s *server) {
	t.Helper()
	file := map[string]any{"packs": packDirs, "grants": grants, "cases": cases}
	if ext != nil {
		file["ext"] = ext
	}
	doc, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ext.cases.json"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	report, err := testrun.Run(context.Background(), testrun.Options{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Results) != len(cases) {
		t.Fatalf("%d results, want %d", len(report.Results), len(cases))
	}
	for _, res := range report.Results {
		i := slices.IndexFunc(cases, func(c map[string]any) bool { return c["name"] == res.Name })
		if i < 0 {
			t.Fatalf("a result for no case: %q", res.Name)
		}
		opa := normal(s.query(t, "hcp/authz/decision", cases[i]["input"]))
		if got := normal(res.Decision.Doc); res.Status != testrun.Pass || !reflect.DeepEqual(got, opa) {
			t.Errorf("case file, %s: %s %v\n      OPA: %s\n     test: %s", res.Name, res.Status, res.Details(), text(opa), text(got))
		}
	}
}

// bundleRevision is the revision of the bundle named name in OPA's
// system/bundles document, "" when there is no such bundle.
func bundleRevision(doc any, name string) string {
	loaded, _ := doc.(map[string]any)
	status, _ := loaded[name].(map[string]any)
	manifest, _ := status["manifest"].(map[string]any)
	rev, _ := manifest["revision"].(string)
	return rev
}

func absAll(t *testing.T, paths ...string) []string {
	t.Helper()
	out := make([]string, len(paths))
	for i, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = abs
	}
	return out
}
