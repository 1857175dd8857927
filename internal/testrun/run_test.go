package testrun

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"maps"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// shop is a small repository: one pack of three rows (one gated), one
// grant file, a case file with one failing case, and a Rego test file.
var shop = map[string]string{
	"packs/shop/manifest.json": `{"id": "shop", "commands": {"browse": {}, "buy": {"cli": ["shop", "buy", "{item}", "--confirm"]}}, "stimulusTriggers": ["sold"]}`,
	"packs/shop/policy.json": `{
  "surface_id": "shop",
  "verbs": {
    "browse": { "operation": "read", "privacy": { "land": "personal" } },
    "buy": { "operation": "write", "privacy": { "land": "personal" }, "confirm": true }
  },
  "stimuli": { "sold": { "operation": "read", "privacy": { "land": "personal" } } }
}`,
	"grants.json": `{"grants": [
  {"subject": "role:buyer", "pack_id": "shop", "capabilities": ["verb.exec.read", "verb.exec.write"]},
  {"subject": "role:seller", "pack_id": "shop", "stimulus": "sold", "capabilities": ["sense.enable"]}
]}`,
	"tests/shop.cases.yaml": `cases:
  - name: a buyer browses
    input: &browse { principal: { id: b, roles: [buyer] }, pack_id: shop, verb_key: browse, owner: b }
    want: { code: allowed }
  - name: a stranger may not
    input: { <<: *browse, principal: { id: s } }
    want: { code: capability_required }
  - name: wrong on purpose
    input: { <<: *browse, owner: x }
    want: { code: allowed, land: personal }
`,
	"tests/shop_test.rego": `package shop_test

test_buy_asks if {
	data.hcp.authz.decision.code == "confirm_required" with input as {"principal": {"id": "b", "roles": ["buyer"]}, "pack_id": "shop", "verb_key": "buy", "owner": "b"}
}

todo_test_later if false
`,
}

// resultLines is each result of report in one line: status, place, name
// and details.
func resultLines(report *Report) []string {
	var lines []string
	for _, r := range report.Results {
		lines = append(lines, string(r.Status)+" "+r.Location()+" "+r.Name+" "+strings.Join(r.Details(), "; "))
	}
	return lines
}

func TestRunAndCoverage(t *testing.T) {
	caseTree(t, shop)
	report, err := Run(context.Background(), Options{Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	lines := resultLines(report)
	want := []string{
		"pass tests/shop.cases.yaml:2 a buyer browses ",
		"pass tests/shop.cases.yaml:5 a stranger may not ",
		`fail tests/shop.cases.yaml:8 wrong on purpose code: want "allowed", got "land_denied"; decision: code "land_denied", error "land denied"`,
		"pass tests/shop_test.rego:3 data.shop_test.test_buy_asks ",
		"skip tests/shop_test.rego:7 data.shop_test.todo_test_later ",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("results\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if got := report.Totals(); got != "3 passed, 1 failed" {
		t.Errorf("totals %q", got)
	}
	// Rows: browse reached; buy and sold not (the Rego test does not count);
	// buy's gate not reached. 1 of 4 units.
	c := report.Coverage
	if reached, total := c.Units(); reached != 1 || total != 4 || c.Percent() != "25.0%" {
		t.Errorf("units %d of %d, %s", reached, total, c.Percent())
	}
	if got := c.Rows[0].Outcomes; !reflect.DeepEqual(got, []string{"capability_required", "land_denied", "allowed"}) {
		t.Errorf("browse outcomes %v", got)
	}
	if !c.Grants[0].Used || c.Grants[1].Used {
		t.Errorf("grants used: %v %v, want true false", c.Grants[0].Used, c.Grants[1].Used)
	}
	for pct, below := range map[string]bool{"25": false, "25.1": true, "0": false, "100": true} {
		threshold, _ := new(big.Rat).SetString(pct)
		if got := c.Below(threshold); got != below {
			t.Errorf("Below(%s) = %v, want %v", pct, got, below)
		}
	}
}

// junitOf runs the cases of files and returns the report and its JUnit
// XML.
func junitOf(t *testing.T, files map[string]string) (*Report, []byte) {
	t.Helper()
	caseTree(t, files)
	report, err := Run(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.WriteJUnit(&out); err != nil {
		t.Fatal(err)
	}
	return report, out.Bytes()
}

// parseJUnit reads a JUnit document back, as a CI system would.
func parseJUnit(data []byte) (*JUnit, error) {
	var doc JUnit
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

func TestJUnitParsesBack(t *testing.T) {
	_, junit := junitOf(t, shop)
	doc, err := parseJUnit(junit)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, junit)
	}
	if doc.Tests != 5 || doc.Failures != 1 || doc.Skipped != 1 || len(doc.Suites) != 2 {
		t.Fatalf("tests %d failures %d skipped %d suites %d, want 5 1 1 2", doc.Tests, doc.Failures, doc.Skipped, len(doc.Suites))
	}
	counted := 0
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			counted++
			if c.Failure != nil {
				want := "tests/shop.cases.yaml:8: wrong on purpose\ncode: want \"allowed\", got \"land_denied\"\ndecision: code \"land_denied\", error \"land denied\""
				if c.Name != "wrong on purpose" || c.Line != 8 || c.Failure.Text != want {
					t.Errorf("failure %q line %d text %q", c.Name, c.Line, c.Failure.Text)
				}
			}
		}
	}
	if counted != 5 {
		t.Errorf("%d test cases, want 5", counted)
	}
}

// A control character in a case name (or a Rego print) cannot make the
// JUnit report unreadable (XML 1.0 holds none, not even in CDATA), nor
// reach the terminal from the pretty report.
func TestJUnitHoldsOnlyXMLCharacters(t *testing.T) {
	files := maps.Clone(shop)
	files["tests/bell.cases.yaml"] = "packs: [../packs/shop]\ngrants: [../grants.json]\ncases:\n" +
		"  - name: \"bell \\a and escape \\e\"\n" +
		"    input: { principal: { id: a }, pack_id: shop, verb_key: browse }\n" +
		"    want: { code: allowed }\n"
	report, junit := junitOf(t, files)
	for i, b := range junit {
		if b < 0x20 && b != '\t' && b != '\n' && b != '\r' {
			t.Fatalf("byte %#x at %d in the report:\n%q", b, i, junit)
		}
	}
	if !strings.Contains(string(junit), "bell \uFFFD and escape \uFFFD") {
		t.Errorf("the failure does not name the case:\n%s", junit)
	}
	// The pretty report quotes the name, as eval and matrix quote keys.
	var out bytes.Buffer
	if err := report.WritePretty(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `FAIL tests/bell.cases.yaml:4: "bell \a and escape \x1b"`) {
		t.Errorf("pretty report:\n%q", out.String())
	}
}

func TestJSONParsesBack(t *testing.T) {
	caseTree(t, shop)
	report, err := Run(context.Background(), Options{Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var doc JSONReport
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Passed != 3 || doc.Failed != 1 || doc.Skipped != 1 || len(doc.Tests) != 5 {
		t.Errorf("passed %d failed %d skipped %d tests %d", doc.Passed, doc.Failed, doc.Skipped, len(doc.Tests))
	}
	failing := doc.Tests[2]
	if failing.Status != Fail || len(failing.Diffs) != 1 || failing.Diffs[0].Path != "code" || failing.Got["code"] != "land_denied" {
		t.Errorf("failing test %+v", failing)
	}
	// A failure says why at the top level of the test, not only inside got.
	if failing.GotCode != "land_denied" || failing.GotError != "land denied" || failing.Explain != nil {
		t.Errorf("failing test: got_code %v, got_error %v, explain %v; want land_denied, land denied and no walk", failing.GotCode, failing.GotError, failing.Explain)
	}
	for _, passing := range doc.Tests[:2] {
		if passing.GotCode != "" || passing.GotError != "" || passing.Got != nil {
			t.Errorf("passing test %q carries a decision: %+v", passing.Name, passing)
		}
	}
	if doc.Coverage == nil || doc.Coverage.Reached != 1 || doc.Coverage.Total != 4 || len(doc.Coverage.Rows) != 3 {
		t.Fatalf("coverage %+v", doc.Coverage)
	}
	// A row's kind is the matrix's word for it: verb or stimulus.
	for _, r := range doc.Coverage.Rows {
		if r.Kind != "verb" && r.Kind != "stimulus" {
			t.Errorf("row %s/%s: kind %q, want verb or stimulus", r.PackID, r.Key, r.Kind)
		}
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{
			name:  "nothing to run",
			files: map[string]string{},
			want:  ".: no tests to run: no case in a *.cases.yaml, *.cases.yml or *.cases.json file, and no test_ rule in a *_test.rego file",
		},
		{
			name:  "only skipped tests",
			files: map[string]string{"a_test.rego": "package a\n\ntodo_test_x if false\n"},
			want:  ".: no tests to run: no case in a *.cases.yaml, *.cases.yml or *.cases.json file, and no test_ rule in a *_test.rego file",
		},
		{
			name: "every problem of every file",
			files: map[string]string{
				"a_test.rego":       "package a\n\ntest_x if {\n",
				"b.cases.yaml":      "cases: [{name: x, input: {}, want: {code: nope}}]\n",
				"bad/policy.json":   `{"surface_id": "other", "verbs": {}}`,
				"bad/manifest.json": `{"id": "bad"}`,
			},
			want: "a_test.rego:4:1: unexpected eof token\n" +
				"b.cases.yaml:1:43: cases[0].want.code: unknown value \"nope\", want \"invalid_input\", \"unknown_command\", \"pack_unavailable\", \"tenant_unavailable\", \"capability_required\", \"land_denied\", \"runtime_denied\", \"confirm_required\", \"allowed\" or null\n" +
				"bad/policy.json:1:16: policy surface_id \"other\" !== \"bad\"",
		},
		{
			name:  "a Rego test that does not compile",
			files: map[string]string{"a_test.rego": "package a\n\ntest_x if {\n\tundefined_fn(1)\n}\n"},
			want:  "a_test.rego:4:2: undefined function undefined_fn",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caseTree(t, tt.files)
			_, err := Run(context.Background(), Options{})
			if err == nil {
				t.Fatal("ran, want an error")
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestCoverageTellsRowsOnOneLineApart(t *testing.T) {
	caseTree(t, map[string]string{
		"p/manifest.json": `{"id": "p", "commands": {"a": {}, "b": {}}}`,
		"p/policy.json":   `{"surface_id": "p", "verbs": {"a": {"operation": "read", "privacy": {"land": "personal"}}, "b": {"operation": "read", "privacy": {"land": "personal"}}}}`,
		"g.json":          `{"grants": [{"subject": "role:x", "pack_id": "p", "verb_key": "a", "capabilities": ["verb.exec.read"]}, {"subject": "role:y", "pack_id": "p", "verb_key": "b", "capabilities": ["verb.exec.read"]}]}`,
		"p.cases.yaml":    "cases: [{name: a, input: {principal: {id: u, roles: [x]}, pack_id: p, verb_key: a, owner: u}, want: {code: allowed}}]\n",
	})
	report, err := Run(context.Background(), Options{Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	c := report.Coverage
	if !c.Rows[0].Reached() || c.Rows[1].Reached() {
		t.Errorf("rows a, b reached: %v %v, want true false", c.Rows[0].Reached(), c.Rows[1].Reached())
	}
	// Both grants stand on line 1: provenance (file:line) cannot tell them
	// apart, so both count as used.
	if !c.Grants[0].Used || !c.Grants[1].Used {
		t.Errorf("grants used: %v %v, want true true", c.Grants[0].Used, c.Grants[1].Used)
	}
}

// TestCoverageKeysPrintable: a policy's key is any string, and the pretty
// coverage lists keys and grants; a key's line break or escape must not
// reach the output as one (a GitHub workflow command, a fake result line,
// a terminal escape).
func TestCoverageKeysPrintable(t *testing.T) {
	key := "x\n::error file=README.md,line=1::all tests passed\x1b[31m"
	keyJSON, _ := json.Marshal(key)
	caseTree(t, map[string]string{
		"p/manifest.json": `{"id": "p", "commands": {"a": {}, ` + string(keyJSON) + `: {}}}`,
		"p/policy.json":   `{"surface_id": "p", "verbs": {"a": {"operation": "read", "privacy": {"land": "personal"}}, ` + string(keyJSON) + `: {"operation": "read", "privacy": {"land": "personal"}}}}`,
		"g.json":          `{"grants": [{"subject": "role:x", "pack_id": "p", "verb_key": ` + string(keyJSON) + `, "capabilities": ["verb.exec.read"]}]}`,
		"p.cases.yaml":    "cases: [{name: a, input: {principal: {id: u}, pack_id: p, verb_key: a, owner: u}, want: {code: capability_required}}]\n",
	})
	report, err := Run(context.Background(), Options{Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.WritePretty(&out); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") || strings.ContainsRune(line, '\x1b') {
			t.Errorf("the key reached the output as it is: %q", line)
		}
	}
	if !strings.Contains(out.String(), `\n::error`) {
		t.Errorf("the key is not listed, quoted:\n%s", out.String())
	}
}

// TestCoverageGrantUnderAnotherSpelling: a case file may name a grant file
// that discovery found by another spelling (here an absolute path); the
// grant its decisions name is the same grant, and is used.
func TestCoverageGrantUnderAnotherSpelling(t *testing.T) {
	caseTree(t, map[string]string{
		"p/manifest.json": `{"id": "p", "commands": {"a": {}}}`,
		"p/policy.json":   `{"surface_id": "p", "verbs": {"a": {"operation": "read", "privacy": {"land": "personal"}}}}`,
		"g.json":          `{"grants": [{"subject": "role:x", "pack_id": "p", "capabilities": ["verb.exec.read"]}]}`,
	})
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cases := fmt.Sprintf("packs: [%q]\ngrants: [%q]\ncases: [{name: a, input: {principal: {id: u, roles: [x]}, pack_id: p, verb_key: a, owner: u}, want: {code: allowed}}]\n",
		filepath.Join(dir, "p"), filepath.Join(dir, "g.json"))
	if err := os.WriteFile("p.cases.yaml", []byte(cases), 0o644); err != nil {
		t.Fatal(err)
	}
	report, err := Run(context.Background(), Options{Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	if g := report.Coverage.Grants; len(g) != 1 || !g[0].Used {
		t.Errorf("grants %+v: want the one grant used", g)
	}
}
