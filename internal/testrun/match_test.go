package testrun

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/document"
)

// decision is a confirm_required decision as the library returns it, with
// numbers as json.Number.
const decision = `{
  "allow": false, "code": "confirm_required", "error": "confirm required",
  "pack_id": "ledger", "verb_key": "transfer", "operation": "write", "land": "personal",
  "capability": "verb.exec.write", "confirm": true, "reasons": ["a", "b"],
  "preview": { "command": "transfer", "args": { "amount": "2.80", "n": 3, "to-x": [1, {"k": 2}] },
               "cli": "ledger transfer 2.80 --confirm" },
  "source": { "row": "packs/ledger/policy.json:5", "grant": "grants/acme.json:7" }
}`

func TestDiff(t *testing.T) {
	tests := []struct {
		name string
		want string // a case's want, YAML
		diff []string
	}{
		{name: "empty subset of top-level fields", want: "{code: confirm_required, allow: false}"},
		{name: "nested subset", want: "{preview: {cli: ledger transfer 2.80 --confirm}, source: {row: packs/ledger/policy.json:5}}"},
		{name: "numbers compare by value", want: "{preview: {args: {n: 3.0}}}"},
		{name: "a number is not a string", want: "{preview: {args: {amount: 2.80}}}", diff: []string{`preview.args.amount: want 2.80, got "2.80"`}},
		{name: "arrays compare exactly", want: "{reasons: [a, b]}"},
		{name: "an array subset is a mismatch", want: "{reasons: [a]}", diff: []string{`reasons: want ["a"], got ["a","b"]`}},
		{name: "array order counts", want: "{reasons: [b, a]}", diff: []string{`reasons: want ["b","a"], got ["a","b"]`}},
		{name: "objects inside arrays compare whole", want: `{preview: {args: {"to-x": [1, {k: 2}]}}}`},
		{name: "objects inside arrays are not subsets", want: `{preview: {args: {"to-x": [1, {}]}}}`, diff: []string{`preview.args["to-x"]: want [1,{}], got [1,{"k":2}]`}},
		{name: "null wants absence", want: "{stimulus: null, hint: null}"},
		{name: "null on a present field", want: "{source: {grant: null}}", diff: []string{`source.grant: want absent, got "grants/acme.json:7"`}},
		{name: "absent field", want: "{stimulus: new_item}", diff: []string{`stimulus: want "new_item", got absent`}},
		{name: "object against scalar", want: "{confirm: {x: 1}}", diff: []string{`confirm: want {"x":1}, got true`}},
		{name: "every mismatch, in path order", want: "{code: allowed, allow: true, source: {row: x, grant: y}}", diff: []string{
			`allow: want true, got false`,
			`code: want "allowed", got "confirm_required"`,
			`source.grant: want "y", got "grants/acme.json:7"`,
			`source.row: want "x", got "packs/ledger/policy.json:5"`,
		}},
		{name: "no HTML escaping", want: `{preview: {cli: "a < b"}}`, diff: []string{`preview.cli: want "a < b", got "ledger transfer 2.80 --confirm"`}},
	}
	var got map[string]any
	dec := json.NewDecoder(strings.NewReader(decision))
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := document.ParseYAML("want.yaml", []byte(tt.want), nil)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, m := range Diff(root.Value().(map[string]any), got) {
				lines = append(lines, m.String())
			}
			if !reflect.DeepEqual(lines, tt.diff) {
				t.Errorf("diff\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tt.diff, "\n"))
			}
		})
	}
}
