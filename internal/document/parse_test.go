package document

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

func TestPositions(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		pointer string
		want    problem.Pos // where the value starts
		wantKey problem.Pos // where its key starts; zero for array items and the root
	}{
		{name: "root", json: `{"a": 1}`, pointer: "", want: problem.Pos{Line: 1, Col: 1}},
		{name: "top-level key", json: `{"a": 1}`, pointer: "/a", want: problem.Pos{Line: 1, Col: 7}, wantKey: problem.Pos{Line: 1, Col: 2}},
		{name: "nested keys", json: "{\n  \"verbs\": {\n    \"transfer\": {\n      \"confirm\": true\n    }\n  }\n}", pointer: "/verbs/transfer/confirm", want: problem.Pos{Line: 4, Col: 18}, wantKey: problem.Pos{Line: 4, Col: 7}},
		{name: "array item", json: `{"grants": [ {}, {"subject": "default"} ]}`, pointer: "/grants/1/subject", want: problem.Pos{Line: 1, Col: 30}, wantKey: problem.Pos{Line: 1, Col: 19}},
		{name: "array of scalars", json: "[1,\n 2,\n    3]", pointer: "/2", want: problem.Pos{Line: 3, Col: 5}},
		{name: "string with escapes before", json: `{"a\"b\\c\u00e9": "x\ny", "next": 2}`, pointer: "/next", want: problem.Pos{Line: 1, Col: 35}, wantKey: problem.Pos{Line: 1, Col: 27}},
		{name: "escaped key found by its value", json: `{"a\"b": 1}`, pointer: "/a\"b", want: problem.Pos{Line: 1, Col: 10}, wantKey: problem.Pos{Line: 1, Col: 2}},
		{name: "multi-byte UTF-8 counts as one column", json: `{"é€𝄞": "日本", "k": 1}`, pointer: "/k", want: problem.Pos{Line: 1, Col: 20}, wantKey: problem.Pos{Line: 1, Col: 15}},
		{name: "tabs count as one column", json: "{\n\t\t\"k\":\t1}", pointer: "/k", want: problem.Pos{Line: 2, Col: 8}, wantKey: problem.Pos{Line: 2, Col: 3}},
		{name: "CRLF lines", json: "{\r\n\"a\": 1,\r\n\"b\": 2}", pointer: "/b", want: problem.Pos{Line: 3, Col: 6}, wantKey: problem.Pos{Line: 3, Col: 1}},
		{name: "CR lines", json: "{\r\"a\": 1,\r\r\"b\": 2}", pointer: "/b", want: problem.Pos{Line: 4, Col: 6}, wantKey: problem.Pos{Line: 4, Col: 1}},
		{name: "pointer escapes", json: `{"a/b": {"c~d": 5}}`, pointer: "/a~1b/c~0d", want: problem.Pos{Line: 1, Col: 17}, wantKey: problem.Pos{Line: 1, Col: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := ParseJSON("f.json", []byte(tt.json), nil)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			n := root.Pointer(tt.pointer)
			if n == nil {
				t.Fatalf("pointer %q found nothing", tt.pointer)
			}
			if n.Pos != tt.want || n.KeyPos != tt.wantKey {
				t.Errorf("value at %v key at %v, want value at %v key at %v", n.Pos, n.KeyPos, tt.want, tt.wantKey)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		json string
		want string
	}{
		{name: "empty", json: "", want: "f.json:1:1: empty file, want a JSON document"},
		{name: "blank", json: " \n\t", want: "f.json:1:1: empty file, want a JSON document"},
		{name: "NaN", json: `{"a": NaN}`, want: "f.json:1:7: invalid JSON: invalid character 'N' looking for beginning of value"},
		{name: "Infinity", json: `[Infinity]`, want: "f.json:1:2: invalid JSON: invalid character 'I' looking for beginning of value"},
		{name: "missing colon", json: "{\n  \"a\" 1}", want: "f.json:2:7: invalid JSON: invalid character '1' after object key"},
		{name: "truncated", json: `{"a": [1, 2`, want: "f.json:1:12: invalid JSON: unexpected end of file"},
		{name: "trailing comma", json: `{"a": 1,}`, want: "f.json:1:9: invalid JSON: invalid character '}' looking for beginning of object key string"},
		{name: "trailing data", json: `{} {}`, want: "f.json:1:4: unexpected data after the JSON value"},
		{name: "byte-order mark", json: "\uFEFF{}", want: "f.json:1:1: the file starts with a byte-order mark (U+FEFF), which JSON does not allow; save it without one"},
		{name: "number OPA refuses", json: "{\"a\": [1e100000]}", want: "f.json:1:8: number 1e100000 is beyond the range of numbers OPA evaluates"},
		{name: "long number clipped", json: "[0." + strings.Repeat("0", 100) + "1e-99999]", want: "f.json:1:2: number 0." + strings.Repeat("0", 30) + "...(46 bytes)..." + strings.Repeat("0", 24) + "1e-99999 is beyond the range of numbers OPA evaluates"},
		{name: "trailing comma after the value", json: "{\"a\": 1},\n", want: "f.json:1:9: unexpected data after the JSON value"},
		{name: "trailing colon after a scalar", json: `1 :`, want: "f.json:1:3: unexpected data after the JSON value"},
		{name: "bad UTF-8 after multi-byte", json: "{\"é\": \"\xff\"}", want: "f.json:1:8: invalid UTF-8"},
		{name: "duplicate key", json: "{\"confirm\": true,\n \"confirm\": false}", want: "f.json:2:2: duplicate key \"confirm\" (first at 1:2)"},
		{name: "duplicate keys all reported", json: `{"a": {"b": 1, "b": 2}, "a": 3}`, want: "f.json:1:16: duplicate key \"b\" (first at 1:8)\nf.json:1:25: duplicate key \"a\" (first at 1:2)"},
		{name: "multi-byte before error", json: `{"日本": x}`, want: "f.json:1:8: invalid JSON: invalid character 'x' looking for beginning of value"},
		{name: "bad escape", json: `{"a": "x\q"}`, want: "f.json:1:10: invalid JSON: invalid character 'q' in string escape code"},
		{name: "control character in string", json: "{\"a\": \"x\ty\"}", want: "f.json:1:9: invalid JSON: invalid character '\\t' in string literal"},
		{name: "too deep", json: strings.Repeat("[", 200000), want: "f.json:1:101: nesting deeper than 100 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseJSON("f.json", []byte(tt.json), nil)
			if err == nil {
				t.Fatal("parse succeeded, want an error")
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestLongString(t *testing.T) {
	data := `{"a": "` + strings.Repeat("x", 30<<20) + `"}`
	_, err := ParseJSON("f.json", []byte(data), nil)
	want := "f.json:1:7: string of 31457280 bytes is longer than the limit of 1048576"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

func TestPath(t *testing.T) {
	root, err := ParseJSON("f.json", []byte(`{"verbs": {"mail.send": {"privacy": {"land": "x"}}}, "grants": [{"a b": 1}], "7": {"8": 1}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{
		"":                              "",
		"/verbs/mail.send/privacy/land": `verbs["mail.send"].privacy.land`,
		"/grants/0/a b":                 `grants[0]["a b"]`,
		"/7/8":                          `["7"]["8"]`,
	}
	for ptr, want := range tests {
		if got := root.Path(ptr); got != want {
			t.Errorf("Path(%q) = %s, want %s", ptr, got, want)
		}
	}
}

// TestPathTo follows paths whose keys hold what a JSON pointer or a URL
// escapes, and renders each as a reader writes it: a key as it is,
// quoted, and an index bare. An object's key "0" is a key; an array's
// index is written one way only.
func TestPathTo(t *testing.T) {
	root, err := ParseJSON("f.json", []byte(`{"verbs": {"3 passed, 0 failed": {"privacy": 1}}, "a/b~": {"0": [{"x y": 1}]}, "": {"\u001b%20": 2}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path []string
		want string
	}{
		{[]string{"verbs", "3 passed, 0 failed", "privacy"}, `verbs["3 passed, 0 failed"].privacy`},
		{[]string{"a/b~", "0", "0", "x y"}, `["a/b~"]["0"][0]["x y"]`},
		{[]string{"", "\x1b%20"}, `[""]["\x1b%20"]`},
	}
	for _, tt := range tests {
		if got := root.PathTo(tt.path); got != tt.want {
			t.Errorf("PathTo(%q) = %s, want %s", tt.path, got, tt.want)
		}
		if n := root.At(tt.path); n == nil || n.Kind != Number {
			t.Errorf("At(%q) = %v, want the number there", tt.path, n)
		}
	}
	for _, index := range []string{"00", "+0", "-0", " 0", "1"} {
		if n := root.At([]string{"a/b~", "0", index}); n != nil {
			t.Errorf("index %q found %v, want none", index, n)
		}
	}
}

// TestQuickParse checks that the jsontext reader reads good files into the
// tree the encoding/json walk builds, and gives up on every file with a
// problem, so that the walk names it.
func TestQuickParse(t *testing.T) {
	good := []string{
		`{"a": [1, -0.5e+10, true, false, null, "x"], "b": {}, "c": []}`,
		"{\r\n\t\"é\\u00e9\\n\\\"\": \"日本\\t\",\n  \"k\": {\"n\": [[], {}]}\n}",
		`"top"`, `12`, ` [ ] `, `{"": ""}`,
	}
	files, _ := filepath.Glob("../../testdata/*/*/*.json")
	if len(files) == 0 {
		t.Fatal("no example files under testdata: the test would check the literals only")
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		good = append(good, string(data))
	}
	for _, doc := range good {
		if _, _, ok := quickParse([]byte(doc), unbounded(), nil); !ok {
			t.Errorf("quickParse gave up on a good file: %.60q", doc)
		}
		quickAgrees(t, []byte(doc))
	}
	bad := []string{
		`{"a": 1, "a": 2}`, `{"a": 1, "\u0061": 2}`, `{"a": 1} x`, `{} {}`, `{"a": 1,}`,
		`[1, 2`, `{"a" 1}`, `[NaN]`, `{},`, `1 :`, strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
		`"` + strings.Repeat("x", MaxStringBytes+1) + `"`,
		`{"` + strings.Repeat("k", MaxStringBytes+1) + `": 1}`,
	}
	for _, doc := range bad {
		if _, _, ok := quickParse([]byte(doc), unbounded(), nil); ok {
			t.Errorf("quickParse accepted a file with a problem: %.60q", doc)
		}
	}
	// jsontext refuses a lone surrogate escape, which encoding/json reads as
	// U+FFFD: the walk reads such a file as before.
	lone := []byte(`{"a": "\ud800"}`)
	root, err := ParseJSON("f.json", lone, nil)
	if _, _, ok := quickParse(lone, unbounded(), nil); ok || err != nil || root.Field("a").Text != "\ufffd" {
		t.Errorf("lone surrogate: quickParse ok=%v, ParseJSON %v %v", ok, root, err)
	}
}

// Err reports a problem once however many steps found it, and problem.Clip counts
// the bytes it leaves out, also when it drops a split character.
func TestErrorsOnceAndClip(t *testing.T) {
	var errs problem.Errors
	errs.Add("g.json", problem.Pos{Line: 2, Col: 1}, "invalid JSON")
	errs.Add("a.json", problem.Pos{Line: 1, Col: 1}, "x")
	errs.Add("g.json", problem.Pos{Line: 2, Col: 1}, "invalid JSON")
	if got, want := errs.Err().Error(), "a.json:1:1: x\ng.json:2:1: invalid JSON"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	long := strings.Repeat("a", 31) + "é" + strings.Repeat("b", 100)
	if got, want := problem.Clip(long), strings.Repeat("a", 31)+"...(70 bytes)..."+strings.Repeat("b", 32); got != want {
		t.Errorf("Clip: %q, want %q", got, want)
	}
}

// unbounded is a tally of a budget of its own, for quickParse alone.
func unbounded() *tally { return newTally(NewBudget()) }
