package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/garbagetest"
)

// normalJSON round-trips v through JSON, as a decoded output reads.
func normalJSON(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// garbageInputs reads the garbage corpus that the rego and integration
// tests share (rego/testdata/garbage.json): each input with the whole
// decision document eval must print for it
// (docs/files.md#the-decision-input,
// docs/decisions.md#the-decision-document).
func garbageInputs(t *testing.T) (inputs []any, want []map[string]any) {
	t.Helper()
	c, err := garbagetest.Read("../../rego/testdata/garbage.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range c.Garbage {
		inputs = append(inputs, g.Input)
		want = append(want, garbagetest.Invalid(g.Reasons))
	}
	return inputs, want
}

// TestEvalDecidesGarbage feeds eval every garbage input of the corpus (and
// an empty array): exit 0 with exactly the invalid_input document, and
// exit 1 under --fail-on-deny with nothing on stderr. A refused call says
// nothing more than the document: no rows, grants or capabilities.
func TestEvalDecidesGarbage(t *testing.T) {
	dir, _ := fixture(t, nil)
	input := filepath.Join(dir, "call.json")
	inputs, wants := garbageInputs(t)
	inputs = append(inputs, []any{})
	wants = append(wants, garbagetest.Invalid([]string{"top level: must be an object"}))
	for i, in := range inputs {
		wantInvalid := normalJSON(t, wants[i])
		data, _ := json.Marshal(in)
		if err := os.WriteFile(input, data, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"eval", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"), "--input", input}
		if i%2 == 1 {
			args = append(args, "--fail-on-deny")
		}
		o := runInProcess(t, len(data), args...)
		var got any
		if err := json.Unmarshal([]byte(o.stdout), &got); err != nil || !reflect.DeepEqual(got, wantInvalid) {
			t.Fatalf("eval of %s printed %s, want exactly %v (%v)", data, o.stdout, wantInvalid, err)
		}
		if want := map[bool]int{false: exitOK, true: exitFindings}[i%2 == 1]; o.code != want || o.stderr != "" {
			t.Fatalf("eval of %s: exit %d, stderr %q; want exit %d and no message", data, o.code, o.stderr, want)
		}
	}
}

// TestEvalRefusesNonJSON gives the real process text that is not one JSON
// document on stdin and as a file: exit 2 naming the input and where.
func TestEvalRefusesNonJSON(t *testing.T) {
	dir, _ := fixture(t, nil)
	for _, text := range []string{"", "not json", "{\"principal\": ", "{} {}", "{\"a\": NaN}", "\xff{}", "[1,]"} {
		o := runBinary(t, dir, text, "eval", "pack", "--grants", "grants.json", "--input", "-")
		if o.code != exitBadInput || o.stdout != "" || !strings.HasPrefix(o.stderr, "<stdin>:1:") {
			t.Errorf("stdin %q: exit %d, stdout %q, stderr %q; want exit 2 and <stdin>:1:COL:", text, o.code, o.stdout, o.stderr)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "call.json"), []byte("{\"principal\": {\n  \"id\": 'bob'}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := runBinary(t, dir, "", "eval", "pack", "--grants", "grants.json", "--input", "call.json")
	if o.code != exitBadInput || !strings.HasPrefix(o.stderr, "call.json:2:9: invalid JSON") {
		t.Errorf("exit %d, stderr %q; want exit 2 and call.json:2:9: invalid JSON", o.code, o.stderr)
	}
}

// TestHostileFilesInTheBinary runs each command as its own process on a
// hostile grant file (the case file for test, the input for eval): the
// process exits 2 with the file named at line:col, and no panic.
func TestHostileFilesInTheBinary(t *testing.T) {
	for _, c := range hostileCommands {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, old := fixture(t, nil)
			target := c.targets[len(c.targets)-1]
			placeHostile(t, dir, target, kindBadUTF8)
			o := runBinary(t, dir, "", c.argsFor(".", old)...)
			if o.code != exitBadInput || o.stdout != "" || !strings.HasPrefix(o.stderr, target+":1:") || !strings.Contains(o.stderr, "invalid UTF-8") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %s:1:COL: invalid UTF-8", o.code, o.stdout, o.stderr, target)
			}
		})
	}
}

// TestHostileArguments gives commands paths that are not what they must
// be: exit 2 naming the path, and no file written or changed.
func TestHostileArguments(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string // the start of stderr
	}{
		{"no pack folder", []string{"lint", "@nowhere", "--grants", "@grants.json"}, "@nowhere: no such pack folder"},
		{"a file as pack folder", []string{"build", "@grants.json", "-o", "@b.tar.gz"}, "@grants.json: is a file, want a pack folder"},
		{"a folder without packs", []string{"matrix", "@empty", "--grants", "@grants.json"}, "@empty: no pack"},
		{"grant file missing", []string{"export", "--harness", "cursor", "--subject", "default", "@pack", "--grants", "@nowhere.json"}, "@nowhere.json: no such file"},
		{"bundle output in a missing folder", []string{"build", "@pack", "--grants", "@grants.json", "-o", "@nowhere/b.tar.gz"}, "write @nowhere/b.tar.gz: no such file or directory"},
		{"bundle output is a folder", []string{"build", "@pack", "--grants", "@grants.json", "-o", "@empty"}, "write @empty: is a directory"},
		{"export output is a folder", []string{"export", "--harness", "cursor", "--subject", "default", "-o", "@empty", "@pack", "--grants", "@grants.json"}, "write @empty: is a directory"},
		{"compile over a folder it did not write", []string{"compile", "@pack", "--grants", "@grants.json", "-o", "@mine"}, "write @mine: exists and is not a bundle directory"},
		{"test path missing", []string{"test", "@nowhere"}, "@nowhere: no such file or folder"},
		{"diff folder missing", []string{"matrix", "--diff", "@nowhere", "@."}, "@nowhere: no such folder"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := fixture(t, map[string]string{"empty/.keep": "", "mine/notes.txt": "my notes"})
			before := snapshot(t, dir)
			var args []string
			for _, a := range c.args {
				args = append(args, strings.ReplaceAll(a, "@", dir+"/"))
			}
			o := runInProcess(t, 0, args...)
			if want := strings.ReplaceAll(c.want, "@", dir+"/"); o.code != exitBadInput || !strings.HasPrefix(o.stderr, want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", o.code, o.stderr, want)
			}
			if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
				t.Errorf("files changed:\n%v\n%v", before, after)
			}
		})
	}
}
