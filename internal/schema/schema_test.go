package schema

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/document"
)

func TestMessages(t *testing.T) {
	tests := []struct {
		name, schema, json, want string
	}{
		{
			name:   "unknown field names the key",
			schema: "policy",
			json:   "{\n  \"surface_id\": \"ledger\",\n  \"verbs\": {\n    \"transfer\": {\n      \"operation\": \"write\",\n      \"privacy\": {\"land\": \"personal\"},\n      \"confrim\": true\n    }\n  }\n}",
			want:   `p.json:7:7: unknown field "confrim" in verbs["transfer"]`,
		},
		{
			name:   "unknown token",
			schema: "policy",
			json:   `{"surface_id": "x", "verbs": {"a": {"operation": "reed", "privacy": {"land": "moon"}}}}`,
			want:   "p.json:1:50: verbs[\"a\"].operation: unknown value \"reed\", want \"read\" or \"write\"\np.json:1:78: verbs[\"a\"].privacy.land: unknown value \"moon\", want \"personal\", \"brain\" or \"local\"",
		},
		{
			name:   "unknown confirm",
			schema: "policy",
			json:   `{"surface_id": "x", "verbs": {"a": {"operation": "write", "privacy": {"land": "local"}, "confirm": "never"}}}`,
			want:   `p.json:1:100: verbs["a"].confirm: unknown value "never", want true, false or "always"`,
		},
		{
			name:   "missing fields and wrong version",
			schema: "policy",
			json:   `{"version": 2, "verbs": {"a": {}}}`,
			want:   "p.json:1:1: missing field \"surface_id\"\np.json:1:13: version: must be 1, got 2\np.json:1:31: missing field \"operation\" in verbs[\"a\"]\np.json:1:31: missing field \"privacy\" in verbs[\"a\"]",
		},
		{
			name:   "wrong type at top level",
			schema: "grants",
			json:   `[]`,
			want:   "p.json:1:1: top level: must be an object, got an array",
		},
		{
			name:   "grant on both a verb and a stimulus",
			schema: "grants",
			json:   `{"grants": [{"subject": "default", "pack_id": "m", "verb_key": "a", "stimulus": "b", "capabilities": ["verb.exec.read"]}]}`,
			want:   "p.json:1:13: grant 1: a grant is scoped to a verb_key or a stimulus, not both",
		},
		{
			name:   "bad subject and capability",
			schema: "grants",
			json:   `{"grants": [{"subject": "user:x", "pack_id": "m", "capabilities": ["verb.exec.all"]}]}`,
			want:   "p.json:1:25: grant 1, subject: \"user:x\" is not a subject: want principal:ID, role:NAME or default\np.json:1:68: grant 1, capabilities[0]: unknown value \"verb.exec.all\", want \"verb.exec.read\", \"verb.exec.write\", \"pack.connect\" or \"sense.enable\"",
		},
		{
			name:   "manifest ignores unknown fields but checks id",
			schema: "manifest",
			json:   `{"id": "Ledger", "name": "x", "commands": {"a": {"cli": "ledger a"}}}`,
			want:   "p.json:1:8: id: \"Ledger\" is not a pack id: want lowercase letters, digits, _ and -, starting with a letter or digit\np.json:1:57: commands[\"a\"].cli: must be an array, got a string",
		},
		{
			name:   "a long value is clipped",
			schema: "grants",
			json:   `{"version": ` + strings.Repeat("9", 1000) + `, "grants": []}`,
			want:   "p.json:1:13: version: must be 1, got " + strings.Repeat("9", 32) + "...(936 bytes)..." + strings.Repeat("9", 32),
		},
		{
			name:   "a pack id is a folder name",
			schema: "manifest",
			json:   `{"id": "` + strings.Repeat("a", 256) + `"}`,
			want:   "p.json:1:8: id: longer than 255 characters",
		},
		{
			name:   "a long key is clipped",
			schema: "grants",
			json:   `{"grants": [], "` + strings.Repeat("k", 5000) + `": 1}`,
			want:   "p.json:1:16: unknown field \"" + strings.Repeat("k", 32) + "...(4936 bytes)..." + strings.Repeat("k", 32) + "\"",
		},
		{
			name:   "a long key is clipped in the path too",
			schema: "policy",
			json:   `{"surface_id": "x", "verbs": {"` + strings.Repeat("k", 5000) + `": {"operation": "read", "privacy": {"land": "local"}, "x": 1}}}`,
			want:   `p.json:1:5087: unknown field "x" in verbs["` + strings.Repeat("k", 25) + "...(4945 bytes)..." + strings.Repeat("k", 30) + `"]`,
		},
		{
			name:   "an empty name is reported at its key",
			schema: "manifest",
			json:   "{\"id\": \"shop\", \"commands\": {\"a\": {},\n \"\": {}}}",
			want:   "p.json:2:2: empty key in commands: a name must not be empty",
		},
		{
			name:   "input needs one of verb_key and stimulus",
			schema: "input",
			json:   `{"principal": {"id": "a"}, "pack_id": "p"}`,
			want:   "p.json:1:1: top level: give exactly one of verb_key and stimulus",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := document.ParseJSON("p.json", []byte(tt.json), nil)
			if err != nil {
				t.Fatal(err)
			}
			err = Get(tt.schema).Validate("p.json", root)
			if err == nil {
				t.Fatal("valid, want errors")
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestExamplesValid(t *testing.T) {
	for _, name := range Names() {
		text, err := Text(name)
		if err != nil || !strings.Contains(string(text), "$schema") {
			t.Fatalf("schema %s: %v", name, err)
		}
		Get(name) // compiles
	}
}

// TestRowSchemaOnceInEffect checks that the row schema, written out for
// verbs and for stimuli (no $ref, for speed), is the same in both places.
func TestRowSchemaOnceInEffect(t *testing.T) {
	props := Get("policy").doc["properties"].(map[string]any)
	verbs := props["verbs"].(map[string]any)["additionalProperties"]
	stimuli := props["stimuli"].(map[string]any)["additionalProperties"]
	if verbs == nil || !reflect.DeepEqual(verbs, stimuli) {
		t.Errorf("the row schemas of verbs and stimuli differ:\n%v\n%v", verbs, stimuli)
	}
}

// TestValidateListsAtMostMaxProblems gives a grant file of 1,500 bad
// grants in one line: the first 1,000 problems are listed, in order, and
// a last line at the first one left out says how many are not. The same
// lines each time, whatever order the library found them in.
func TestValidateListsAtMostMaxProblems(t *testing.T) {
	doc := `{"grants": [` + strings.TrimSuffix(strings.Repeat("0,", 1500), ",") + "]}"
	root, err := document.ParseJSON("g.json", []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = Get("grants").Validate("g.json", root)
	lines := strings.Split(fmt.Sprint(err), "\n")
	if len(lines) != MaxProblems+1 {
		t.Fatalf("%d lines, want %d", len(lines), MaxProblems+1)
	}
	if want := "g.json:1:13: grant 1: must be an object, got a number"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if want := "g.json:1:2011: grant 1000: must be an object, got a number"; lines[MaxProblems-1] != want {
		t.Errorf("line %d %q, want %q", MaxProblems, lines[MaxProblems-1], want)
	}
	if want := "g.json:1:2013: 500 more violations from here on are not listed (a file lists its first 1000 problems)"; lines[MaxProblems] != want {
		t.Errorf("last line %q, want %q", lines[MaxProblems], want)
	}
	for range 3 {
		if again := Get("grants").Validate("g.json", root); again.Error() != err.Error() {
			t.Fatal("another validation listed other problems")
		}
	}
}
