package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/document"
)

// hostileKeys are keys that the validator's locations escape or drop,
// each with the way a message shows it: quoted with Go's escapes, as
// written. None is a plain identifier, so each is shown quoted wherever
// it stands.
var hostileKeys = []struct{ key, shown string }{
	{"3 passed, 0 failed", `"3 passed, 0 failed"`}, // %20, %2C
	{"a%20b", `"a%20b"`},                           // a literal escape: %2520
	{"100%", `"100%"`},
	{"%zz", `"%zz"`}, // no escape at all
	{"+", `"+"`},     // not a space, as a query would read it
	{"a/b", `"a/b"`}, // ~1
	{"~0~1~", `"~0~1~"`},
	{"é 日本 😀", `"é 日本 😀"`},
	{`a"b\c`, `"a\"b\\c"`},
	{"tab\tnl\nesc\x1b", `"tab\tnl\nesc\x1b"`},
	{"\u2028", `"\u2028"`},
	{"?#&=;@:$[]", `"?#&=;@:$[]"`},
	{"0", `"0"`}, // a key, not an index
	{"", `""`},   // no segment at all
}

// keyScenarios are schemas that reach a value through each way a
// keyword steps into an object, with a document that breaks each under
// @KEY and the error that must name it (@K is the key as shown). The
// offending value or key starts line 2, so its position is 2:1
// whatever the key holds.
var keyScenarios = []struct{ name, schema, doc, want string }{
	{
		name:   "additionalProperties",
		schema: `{"properties": {"verbs": {"additionalProperties": {"properties": {"x": {"type": "string"}}}}}}`,
		doc:    "{\"verbs\": {@KEY: {\"x\":\n1}}}",
		want:   "p.json:2:1: verbs[@K].x: must be a string, got a number",
	},
	{
		name:   "two keys from the document in a row",
		schema: `{"properties": {"verbs": {"additionalProperties": {"additionalProperties": {"type": "string"}}}}}`,
		doc:    "{\"verbs\": {@KEY: {@KEY:\n1}}}",
		want:   "p.json:2:1: verbs[@K][@K]: must be a string, got a number",
	},
	{
		name:   "patternProperties",
		schema: `{"properties": {"verbs": {"patternProperties": {"(?s)^.*$|/~0% ,": {"properties": {"x": {"type": "string"}}}}}}}`,
		doc:    "{\"verbs\": {@KEY: {\"x\":\n1}}}",
		want:   "p.json:2:1: verbs[@K].x: must be a string, got a number",
	},
	{
		name:   "unevaluatedProperties",
		schema: `{"properties": {"verbs": {"unevaluatedProperties": {"type": "string"}}}}`,
		doc:    "{\"verbs\": {@KEY:\n1}}",
		want:   "p.json:2:1: verbs[@K]: must be a string, got a number",
	},
	{
		name:   "properties names the key",
		schema: `{"properties": {"verbs": {"properties": {@KEY: {"type": "string"}}}}}`,
		doc:    "{\"verbs\": {@KEY:\n1}}",
		want:   "p.json:2:1: verbs[@K]: must be a string, got a number",
	},
	{
		name:   "propertyNames is about the key",
		schema: `{"properties": {"verbs": {"propertyNames": false}}}`,
		doc:    "{\"verbs\": {\n@KEY: 1}}",
		want:   "p.json:2:1: key @K in verbs: not allowed",
	},
	{
		name:   "an array's element, then a key",
		schema: `{"properties": {"verbs": {"items": {"additionalProperties": {"type": "string"}}}}}`,
		doc:    "{\"verbs\": [{@KEY:\n1}]}",
		want:   "p.json:2:1: verbs[0][@K]: must be a string, got a number",
	},
	{
		name:   "through allOf and $ref",
		schema: `{"$defs": {"row": {"additionalProperties": {"type": "string"}}}, "properties": {"verbs": {"allOf": [{"$ref": "#/$defs/row"}]}}}`,
		doc:    "{\"verbs\": {@KEY:\n1}}",
		want:   "p.json:2:1: verbs[@K]: must be a string, got a number",
	},
}

// TestHostileKeysLocated validates documents whose keys hold what the
// validator escapes (spaces, commas, %, /, ~, non-ASCII, quotes, control
// characters) or drops (the empty key), reached through each keyword
// that steps into an object: each error names the line and column of the
// offending value and the key as written, and there is no other error.
func TestHostileKeysLocated(t *testing.T) {
	for _, sc := range keyScenarios {
		for _, k := range hostileKeys {
			t.Run(sc.name+"/"+k.shown, func(t *testing.T) {
				quoted, err := json.Marshal(k.key)
				if err != nil {
					t.Fatal(err)
				}
				s, err := compileSchema("scenario", []byte(strings.ReplaceAll(sc.schema, "@KEY", string(quoted))))
				if err != nil {
					t.Fatal(err)
				}
				doc := strings.ReplaceAll(sc.doc, "@KEY", string(quoted))
				root, err := document.ParseJSON("p.json", []byte(doc), nil)
				if err != nil {
					t.Fatal(err)
				}
				want := strings.ReplaceAll(sc.want, "@K", k.shown)
				if err := s.Validate("p.json", root); err == nil || err.Error() != want {
					t.Errorf("%s:\ngot  %v\nwant %s", doc, err, want)
				}
			})
		}
	}
}

// TestHostileKeysInOurSchemas breaks a value under each hostile key in
// each file we read whose schema steps into a key of the author's
// (policy.json's verbs and stimuli, manifest.json's commands), or that
// holds such a key where it is wrong (a grant file, a case file in JSON
// and in YAML) or beside a wrong value (a decision input's args): each
// error names the line and column of what is wrong and the key as
// written, and there is no other error. An empty verb, stimulus or
// command key is an error of its own, at the key.
func TestHostileKeysInOurSchemas(t *testing.T) {
	kinds := []struct {
		name, schema, doc string
		yaml              bool
		want              []string
		emptyKey          string // the error when @KEY is ""
	}{
		{
			name:   "policy verbs",
			schema: "policy",
			doc:    "{\"surface_id\": \"p\", \"verbs\": {\n@KEY: {\"operation\":\n\"reed\", \"privacy\": {\"land\": \"personal\",\n\"lnd\": 1}}}}",
			want: []string{
				`p.json:3:1: verbs[@K].operation: unknown value "reed", want "read" or "write"`,
				`p.json:4:1: unknown field "lnd" in verbs[@K].privacy`,
			},
			emptyKey: "p.json:2:1: empty key in verbs: a name must not be empty",
		},
		{
			name:   "policy stimuli",
			schema: "policy",
			doc:    "{\"surface_id\": \"p\", \"verbs\": {}, \"stimuli\": {\n@KEY: {\"operation\": \"read\", \"privacy\": {\"land\":\n\"moon\"},\n\"confrim\": true}}}",
			want: []string{
				`p.json:3:1: stimuli[@K].privacy.land: unknown value "moon", want "personal", "brain" or "local"`,
				`p.json:4:1: unknown field "confrim" in stimuli[@K]`,
			},
			emptyKey: "p.json:2:1: empty key in stimuli: a name must not be empty",
		},
		{
			name:     "manifest commands",
			schema:   "manifest",
			doc:      "{\"id\": \"p\", \"commands\": {\n@KEY: {\"cli\":\n\"x\", \"connect\":\n1}}}",
			want:     []string{`p.json:3:1: commands[@K].cli: must be an array, got a string`, `p.json:4:1: commands[@K].connect: must be a boolean, got a number`},
			emptyKey: "p.json:2:1: empty key in commands: a name must not be empty",
		},
		{
			name:   "a grant's unknown field",
			schema: "grants",
			doc:    "{\"grants\": [{\"subject\": \"default\", \"pack_id\": \"p\", \"capabilities\": [\"verb.exec.read\"],\n@KEY: 1}]}",
			want:   []string{`p.json:2:1: unknown field @K in grant 1`},
		},
		{
			name:   "a JSON case file's unknown field",
			schema: "cases",
			doc:    "{\"cases\": [{\"name\": \"c\", \"input\": {\"args\": {@KEY: {@KEY: 1}}}, \"want\": {\"code\": \"allowed\",\n@KEY: 1}}]}",
			want:   []string{`p.json:2:1: unknown field @K in cases[0].want`},
		},
		{
			name:   "a YAML case file's unknown field",
			schema: "cases",
			yaml:   true,
			doc:    "cases:\n  - name: c\n    input: {args: {@KEY: {@KEY: 1}}}\n    want:\n      code: allowed\n      @KEY: 1\n",
			want:   []string{`p.json:6:7: unknown field @K in cases[0].want`},
		},
		{
			name:   "a decision input's args",
			schema: "input",
			doc:    "{\"principal\": {\"id\":\n\"\"}, \"pack_id\": \"p\", \"verb_key\": \"v\", \"args\": {@KEY: {@KEY: [1]}}, \"access\": {\"allow\": [{@KEY: 1}]}}",
			want:   []string{`p.json:2:1: principal.id: must not be empty`},
		},
	}
	for _, kind := range kinds {
		for _, k := range hostileKeys {
			t.Run(kind.name+"/"+k.shown, func(t *testing.T) {
				quoted, err := json.Marshal(k.key) // a YAML double-quoted scalar too
				if err != nil {
					t.Fatal(err)
				}
				doc := []byte(strings.ReplaceAll(kind.doc, "@KEY", string(quoted)))
				parse := document.ParseJSON
				if kind.yaml {
					parse = document.ParseYAML
				}
				root, err := parse("p.json", doc, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := kind.want
				if k.key == "" && kind.emptyKey != "" {
					want = append([]string{kind.emptyKey}, want...)
				}
				wantText := strings.ReplaceAll(strings.Join(want, "\n"), "@K", k.shown)
				if err := Get(kind.schema).Validate("p.json", root); err == nil || err.Error() != wantText {
					t.Errorf("%s:\ngot\n%v\nwant\n%s", doc, err, wantText)
				}
			})
		}
	}
}
