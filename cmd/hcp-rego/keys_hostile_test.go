package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// hostileKeys are verb, stimulus, command and field keys that a JSON
// Schema validator's locations escape (a space as %20, a comma as %2C,
// "/" as ~1) or drop (the empty key), each with the way an error shows
// it: quoted with Go's escapes.
var hostileKeys = []struct{ key, shown string }{
	{"3 passed, 0 failed", `"3 passed, 0 failed"`},
	{"a%20b", `"a%20b"`},
	{"100%", `"100%"`},
	{"a/b~0", `"a/b~0"`},
	{"é 日本 😀", `"é 日本 😀"`},
	{`a"b\c`, `"a\"b\\c"`},
	{"nl\n::error::x\x1b[31m", `"nl\n::error::x\x1b[31m"`},
	{"0", `"0"`},
	{"", `""`},
}

// keyTree writes a pack, a grant file and case files in JSON and YAML
// whose every key of hostileKeys holds a wrong value, each wrong value
// or key first on its line, and returns the folder and the errors each
// must bring, at the line and column of what is wrong.
func keyTree(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, filepath.FromSlash(name)) }
	var verbs, stimuli, commands, grants, jsonCases, yamlCases, want []string
	for i, k := range hostileKeys {
		q, err := json.Marshal(k.key) // a YAML double-quoted scalar too
		if err != nil {
			t.Fatal(err)
		}
		at := func(file string, line, col int, format string, args ...any) {
			want = append(want, fmt.Sprintf("%s:%d:%d: %s", p(file), line, col, fmt.Sprintf(format, args...)))
		}
		verbs = append(verbs, string(q)+": {\"operation\":\n\"reed\", \"privacy\": {\"land\": \"personal\",\n\"lnd\": 1}}")
		at("packs/p/policy.json", 3+3*i, 1, `verbs[%s].operation: unknown value "reed", want "read" or "write"`, k.shown)
		at("packs/p/policy.json", 4+3*i, 1, `unknown field "lnd" in verbs[%s].privacy`, k.shown)
		stimuli = append(stimuli, string(q)+": {\"operation\": \"read\", \"privacy\": {\"land\":\n\"moon\"}}")
		at("packs/p/policy.json", 3+3*len(hostileKeys)+2*i, 1, `stimuli[%s].privacy.land: unknown value "moon", want "personal", "brain" or "local"`, k.shown)
		commands = append(commands, string(q)+": {\"cli\":\n\"x\"}")
		at("packs/p/manifest.json", 3+2*i, 1, `commands[%s].cli: must be an array, got a string`, k.shown)
		grants = append(grants, "{\"subject\": \"default\", \"pack_id\": \"p\", \"capabilities\": [\"verb.exec.read\"],\n"+string(q)+": 1}")
		at("g.json", 3+2*i, 1, `unknown field %s in grant %d`, k.shown, i+1)
		jsonCases = append(jsonCases, fmt.Sprintf("{\"name\": \"c%d\", \"input\": {\"args\": {%s: 1}}, \"want\": {\"code\": \"allowed\",\n%s: 1}}", i, q, q))
		at("c.cases.json", 3+2*i, 1, `unknown field %s in cases[%d].want`, k.shown, i)
		yamlCases = append(yamlCases, fmt.Sprintf("  - name: c%d\n    input: {args: {%s: 1}}\n    want:\n      code: allowed\n      %s: 1\n", i, q, q))
		at("c.cases.yaml", 6+5*i, 7, `unknown field %s in cases[%d].want`, k.shown, i)
		if k.key == "" {
			at("packs/p/policy.json", 2+3*i, 1, "empty key in verbs: a name must not be empty")
			at("packs/p/policy.json", 2+3*len(hostileKeys)+2*i, 1, "empty key in stimuli: a name must not be empty")
			at("packs/p/manifest.json", 2+2*i, 1, "empty key in commands: a name must not be empty")
		}
	}
	treetest.Write(t, dir, map[string]string{
		"packs/p/policy.json": "{\"surface_id\": \"p\", \"verbs\": {\n" + strings.Join(verbs, ",\n") +
			"}, \"stimuli\": {\n" + strings.Join(stimuli, ",\n") + "}}",
		"packs/p/manifest.json": "{\"id\": \"p\", \"commands\": {\n" + strings.Join(commands, ",\n") + "}}",
		"g.json":                "{\"grants\": [\n" + strings.Join(grants, ",\n") + "]}",
		"c.cases.json":          "{\"cases\": [\n" + strings.Join(jsonCases, ",\n") + "]}",
		"c.cases.yaml":          "cases:\n" + strings.Join(yamlCases, ""),
	})
	return dir, want
}

// TestHostileKeysNamed runs lint and test on files whose verb, stimulus,
// command and field keys hold spaces, commas, %, /, ~, non-ASCII,
// quotes, control characters, or nothing, each with a wrong value: each
// error names the line and column of the wrong value (or key) and the
// key as written, escaped for printing, and no other error is printed
// (the validator's own escapes once named verbs["3%20passed%2C..."] at
// 1:1 and fields of the file's top level as unknown in it). eval
// --explain lists an input's problems beside such keys in its args, and
// only them.
func TestHostileKeysNamed(t *testing.T) {
	dir, want := keyTree(t)
	lint := slices.DeleteFunc(slices.Clone(want), func(line string) bool { return strings.Contains(line, ".cases.") })
	runs := []struct {
		name string
		args []string
		want []string
	}{
		{"lint", []string{"lint", filepath.Join(dir, "packs"), "--grants", filepath.Join(dir, "g.json")}, lint},
		{"test", []string{"test", dir}, want},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			o := runInProcess(t, 0, r.args...)
			checkEscaped(t, "stderr", o.stderr, 0, false)
			got := strings.Split(strings.TrimSuffix(o.stderr, "\n"), "\n")
			slices.Sort(got)
			wantSorted := slices.Sorted(slices.Values(r.want))
			if o.code != exitBadInput || o.stdout != "" || !slices.Equal(got, wantSorted) {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and stderr (in any order):\n%s", o.code, o.stdout, o.stderr, strings.Join(wantSorted, "\n"))
			}
		})
	}
	t.Run("eval --explain", func(t *testing.T) {
		pack, _ := fixture(t, nil)
		args := map[string]any{}
		for _, k := range hostileKeys {
			args[k.key] = map[string]any{k.key: []any{1}}
		}
		argsJSON, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		input := filepath.Join(t.TempDir(), "in.json")
		treetest.Write(t, filepath.Dir(input), map[string]string{"in.json": "{\"principal\": {\"id\":\n\"\"}, \"pack_id\": \"p\", \"verb_key\": \"v\", \"args\": " + string(argsJSON) + "}"})
		o := runInProcess(t, 0, "eval", filepath.Join(pack, "pack"), "--input", input, "--explain")
		var out struct {
			Steps []struct {
				Step, Status string
				Detail       []string
			}
		}
		if err := json.Unmarshal([]byte(o.stdout), &out); err != nil || len(out.Steps) == 0 {
			t.Fatalf("exit %d, stdout %q, stderr %q: %v", o.code, o.stdout, o.stderr, err)
		}
		want := []string{input + ":2:1: principal.id: must not be empty"}
		if first := out.Steps[0]; first.Step != "input" || !slices.Equal(first.Detail, want) {
			t.Errorf("first step %+v, want the input's problems %q", first, want)
		}
	})
}
