package testrun

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// refused is the shop tree with a case that wants only allow: true, and
// gets a refusal. Its failure must still say why.
func refused() map[string]string {
	files := maps.Clone(shop)
	delete(files, "tests/shop_test.rego")
	files["tests/shop.cases.yaml"] = `cases:
  - name: a stranger buys
    input: { principal: { id: s }, pack_id: shop, verb_key: buy, owner: s }
    want: { allow: true }
`
	return files
}

// A failing case prints the code and error of the decision that came in
// every format that shows failures, even when its want names neither.
func TestFailureSaysWhy(t *testing.T) {
	caseTree(t, refused())
	report, err := Run(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	const why = `decision: code "capability_required", error "capability required"`
	for name, write := range map[string]func(*Report, *bytes.Buffer) error{
		"pretty": func(r *Report, b *bytes.Buffer) error { return r.WritePretty(b) },
		"github": func(r *Report, b *bytes.Buffer) error { return r.WriteGitHub(b) },
		"junit":  func(r *Report, b *bytes.Buffer) error { return r.WriteJUnit(b) },
	} {
		var out bytes.Buffer
		if err := write(report, &out); err != nil {
			t.Fatal(err)
		}
		text := out.String()
		if name == "junit" {
			text = strings.ReplaceAll(text, "&#34;", `"`)
		}
		if !strings.Contains(text, "allow: want true, got false") || !strings.Contains(text, why) {
			t.Errorf("%s does not say why the case failed:\n%s", name, out.String())
		}
	}
	var out bytes.Buffer
	if err := report.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var doc JSONReport
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Tests[0]; got.GotCode != "capability_required" || got.GotError != "capability required" {
		t.Errorf("json: got_code %v, got_error %v", got.GotCode, got.GotError)
	}
}

// With Explain, each failing case carries the walk of eval --explain, in
// source terms (the pack and grant files of the case), and a passing case
// none.
func TestExplainWalksEachFailingCase(t *testing.T) {
	files := refused()
	files["tests/shop.cases.yaml"] += `  - name: a buyer browses
    input: { principal: { id: b, roles: [buyer] }, pack_id: shop, verb_key: browse, owner: b }
    want: { code: allowed }
`
	caseTree(t, files)
	report, err := Run(context.Background(), Options{Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Results) != 2 || report.Results[1].Steps != nil {
		t.Fatalf("results %+v: want the passing case unexplained", report.Results)
	}
	var out bytes.Buffer
	if err := report.WritePretty(&out); err != nil {
		t.Fatal(err)
	}
	want := `FAIL tests/shop.cases.yaml:2: a stranger buys
    allow: want true, got false
    decision: code "capability_required", error "capability required"
    explain:
      ok    input       well formed
      ok    row         command "buy" of pack "shop": write, land personal, confirm true, needs verb.exec.write (packs/shop/policy.json:5)
      ok    reachable   pack_reachable is not false
      ok    tenant      the build is not sharded: every tenant's grants are here
      STOP  capability  no grant gives verb.exec.write on command "buy" of pack "shop" to principal:s
                        default grants are on (no principal: or role: grant applies), and none gives it
      -     land
      -     runtime
      -     confirm
PASS tests/shop.cases.yaml:5: a buyer browses
`
	if out.String() != want {
		t.Errorf("pretty report\n%s\nwant\n%s", out.String(), want)
	}
	doc := report.JSON()
	if steps := doc.Tests[0].Explain; len(steps) != 8 || steps[4].Name != "capability" || steps[4].Status != "STOP" {
		t.Errorf("json explain %+v: want the eight steps, stopped at capability", steps)
	}
	if doc.Tests[1].Explain != nil {
		t.Errorf("json explains the passing case: %+v", doc.Tests[1].Explain)
	}
}

// An input the schema refuses is explained by its problems, positioned in
// the case file, as eval --explain positions them in the input file.
func TestExplainPositionsInputProblems(t *testing.T) {
	files := refused()
	files["tests/shop.cases.yaml"] = `cases:
  - name: no principal
    input: { pack_id: shop, verb_key: buy }
    want: { allow: true }
`
	caseTree(t, files)
	report, err := Run(context.Background(), Options{Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.WritePretty(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "      STOP  input       tests/shop.cases.yaml:3:12: missing field \"principal\"\n") {
		t.Errorf("pretty report does not position the input's problem:\n%s", out.String())
	}
}

// TestExplainRuntimeGatePassed: a case whose call passed a gate that only
// the runtime's confirm rule put there is explained with that gate and
// what passed it; the allowed decision carries no reasons, and explain
// said "no gate".
func TestExplainRuntimeGatePassed(t *testing.T) {
	files := maps.Clone(shop)
	delete(files, "tests/shop_test.rego")
	files["tests/shop.cases.yaml"] = `cases:
  - name: browsing after hours, confirmed
    input: { principal: { id: b, roles: [buyer] }, pack_id: shop, verb_key: browse, owner: b, confirm: true }
    ext: { confirm: [after hours] }
    want: { code: confirm_required }
`
	caseTree(t, files)
	report, err := Run(context.Background(), Options{Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	steps := report.Results[0].Steps
	if len(steps) == 0 {
		t.Fatal("no explanation")
	}
	gate := strings.Join(steps[len(steps)-1].Detail, "; ")
	if !strings.Contains(gate, "a runtime rule puts a confirm gate on the call: [after hours]") || !strings.Contains(gate, "confirm: true passes it") {
		t.Errorf("confirm step: %s", gate)
	}
}
