package document

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

func TestYAMLPositions(t *testing.T) {
	doc := "packs: [../packs/ledger]\n" + // 1
		"cases:\n" + // 2
		"  - name: a member's transfer asks first\n" + // 3
		"    input: { principal: { id: bob, roles: [member] },\n" + // 4
		"             verb_key: transfer }\n" + // 5
		"    want:\n" + // 6
		"      code: confirm_required\n" + // 7
		"  - name: \"é€𝄞\"\n" + // 8
		"    want: {code: allowed}\n" // 9
	tests := []struct {
		name    string
		pointer string
		want    problem.Pos
		wantKey problem.Pos
	}{
		{name: "root", pointer: "", want: problem.Pos{Line: 1, Col: 1}},
		{name: "flow sequence", pointer: "/packs", want: problem.Pos{Line: 1, Col: 8}, wantKey: problem.Pos{Line: 1, Col: 1}},
		{name: "flow item", pointer: "/packs/0", want: problem.Pos{Line: 1, Col: 9}},
		{name: "block mapping in a sequence starts at its first key", pointer: "/cases/0", want: problem.Pos{Line: 3, Col: 5}},
		{name: "plain scalar", pointer: "/cases/0/name", want: problem.Pos{Line: 3, Col: 11}, wantKey: problem.Pos{Line: 3, Col: 5}},
		{name: "flow mapping", pointer: "/cases/0/input", want: problem.Pos{Line: 4, Col: 12}, wantKey: problem.Pos{Line: 4, Col: 5}},
		{name: "nested flow", pointer: "/cases/0/input/principal/roles/0", want: problem.Pos{Line: 4, Col: 44}},
		{name: "flow continued on the next line", pointer: "/cases/0/input/verb_key", want: problem.Pos{Line: 5, Col: 24}, wantKey: problem.Pos{Line: 5, Col: 14}},
		{name: "block mapping value", pointer: "/cases/0/want/code", want: problem.Pos{Line: 7, Col: 13}, wantKey: problem.Pos{Line: 7, Col: 7}},
		{name: "multi-byte characters count as one column", pointer: "/cases/1/want", want: problem.Pos{Line: 9, Col: 11}, wantKey: problem.Pos{Line: 9, Col: 5}},
	}
	root, err := ParseYAML("c.yaml", []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := root.Pointer(tt.pointer)
			if n == nil {
				t.Fatalf("pointer %q found nothing", tt.pointer)
			}
			if n.Pos != tt.want || n.KeyPos != tt.wantKey {
				t.Errorf("value at %v key at %v, want value at %v key at %v", n.Pos, n.KeyPos, tt.want, tt.wantKey)
			}
		})
	}
	if got := root.Pointer("/cases/1/name").Text; got != "é€𝄞" {
		t.Errorf("name = %q", got)
	}
}

func TestYAMLValues(t *testing.T) {
	tests := []struct {
		name, yaml, want string // want: the value as compact JSON
	}{
		{name: "scalars", yaml: "a: 1\nb: -2.5e3\nc: true\nd: ~\ne: text\nf: 'quoted'\ng: False", want: `{"a":1,"b":-2.5e3,"c":true,"d":null,"e":"text","f":"quoted","g":false}`},
		{name: "YAML 1.1 words stay strings", yaml: "a: yes\nb: off\nc: y", want: `{"a":"yes","b":"off","c":"y"}`},
		{name: "numbers JSON cannot write are read as YAML reads them", yaml: "[0x1F, 1_000, +5, 0o17, 1.]", want: `[31,1000,5,15,1]`},
		{name: "numbers keep their text", yaml: "[2.80, 10000000000000000000001, 1E2]", want: `[2.80,10000000000000000000001,1E2]`},
		{name: "numbers beyond float64 stay numbers", yaml: "[1e400, -1E+400, '1e400']", want: `[1e400,-1E+400,"1e400"]`},
		{name: "timestamps and quoted numbers are strings", yaml: "a: 2024-01-01\nb: \"2.80\"\nc: !!str 5", want: `{"a":"2024-01-01","b":"2.80","c":"5"}`},
		{name: "scalar keys are their text", yaml: "1: a\ntrue: b\n2.5: c", want: `{"1":"a","2.5":"c","true":"b"}`},
		{name: "alias", yaml: "bob: &bob {id: bob, roles: [member]}\nuse: *bob", want: `{"bob":{"id":"bob","roles":["member"]},"use":{"id":"bob","roles":["member"]}}`},
		{name: "merge keeps explicit keys", yaml: "base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  b: 3\n  c: 4", want: `{"base":{"a":1,"b":2},"x":{"a":1,"b":3,"c":4}}`},
		{name: "earlier merges win", yaml: "p: &p {a: 1}\nq: &q {a: 2, b: 2}\nx: {<<: [*p, *q]}", want: `{"p":{"a":1},"q":{"a":2,"b":2},"x":{"a":1,"b":2}}`},
		{name: "leading document marker", yaml: "---\na: 1\n...\n", want: `{"a":1}`},
		{name: "JSON is YAML", yaml: `{"a": [1, "x", {"b": null}]}`, want: `{"a":[1,"x",{"b":null}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := ParseYAML("v.yaml", []byte(tt.yaml), nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ParseJSON("want.json", []byte(tt.want), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := root.Value(); !reflect.DeepEqual(got, want.Value()) {
				gotJSON, _ := json.Marshal(got)
				t.Errorf("got %s, want %s", gotJSON, tt.want)
			}
		})
	}
}

func TestYAMLAliasPositions(t *testing.T) {
	doc := "bob: &bob\n  id: bob\nuse:\n  principal: *bob\n"
	root, err := ParseYAML("a.yaml", []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	alias := root.Pointer("/use/principal")
	if alias.Pos != (problem.Pos{Line: 4, Col: 14}) || alias.KeyPos != (problem.Pos{Line: 4, Col: 3}) {
		t.Errorf("alias at %v key %v, want 4:14 key 4:3", alias.Pos, alias.KeyPos)
	}
	if inner := alias.Field("id"); inner.Pos != (problem.Pos{Line: 2, Col: 7}) {
		t.Errorf("value inside the alias at %v, want the anchor's 2:7", inner.Pos)
	}
}

func TestYAMLErrors(t *testing.T) {
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for _, c := range "bcdefgh" {
		prev := string(c - 1)
		laughs += string(c) + ": &" + string(c) + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
	}
	tests := []struct {
		name, yaml, want string
	}{
		{name: "empty", yaml: "", want: "f.yaml:1:1: empty file, want a YAML document"},
		{name: "comments only", yaml: "# nothing\n\n", want: "f.yaml:1:1: empty file, want a YAML document"},
		{name: "duplicate keys, every one", yaml: "a: 1\nb:\n  c: 1\n  c: 2\na: 3\n", want: "f.yaml:4:3: duplicate key \"c\" (first at 3:3)\nf.yaml:5:1: duplicate key \"a\" (first at 1:1)"},
		{name: "duplicate in flow mapping", yaml: "{x: 1, y: 2, x: 3}", want: `f.yaml:1:14: duplicate key "x" (first at 1:2)`},
		{name: "syntax error names the line", yaml: "a: 1\n  b: c: d\n", want: "f.yaml:2:3: invalid YAML: mapping values are not allowed in this context"},
		{name: "unclosed flow ends at the end of the file", yaml: "x: [1, 2\n", want: "f.yaml:2:1: invalid YAML: did not find expected ',' or ']'"},
		{name: "a broken block names the line it starts on", yaml: "a: 1\ncases:\n  - name: x\n  input: {}\n", want: "f.yaml:3:3: invalid YAML: did not find expected '-' indicator"},
		{name: "a bad indent", yaml: "a: 1\nb:\n  c: 1\n d: 2\n", want: "f.yaml:4:2: invalid YAML: did not find expected key"},
		{name: "tab indentation", yaml: "a: 1\n\tb: 2\n", want: "f.yaml:2:2: invalid YAML: found a tab character that violates indentation"},
		{name: "second document", yaml: "a: 1\n---\nb: 2\n", want: "f.yaml:2:1: a second YAML document, want one"},
		{name: "invalid UTF-8", yaml: "a: é\xff\n", want: "f.yaml:1:5: invalid UTF-8"},
		{name: "control character", yaml: "a: x\x01\n", want: "f.yaml:1:5: control character U+0001 is not allowed in YAML"},
		{name: "infinity", yaml: "a: [.inf, -.Inf, .nan]", want: "f.yaml:1:5: .inf is not a number JSON can hold\nf.yaml:1:11: -.Inf is not a number JSON can hold\nf.yaml:1:18: .nan is not a number JSON can hold"},
		{name: "old Mac line ends", yaml: "a: 1\rb: .inf\r", want: "f.yaml:2:4: .inf is not a number JSON can hold"},
		{name: "number OPA refuses", yaml: "a: [1e100000, \"1e100000\"]", want: "f.yaml:1:5: number 1e100000 is beyond the range of numbers OPA evaluates"},
		{name: "binary and custom tags", yaml: "a: !!binary aGk=\nb: !thing 1\n", want: "f.yaml:1:4: unsupported YAML tag !!binary: want a string, number, boolean or null\nf.yaml:2:4: unsupported YAML tag !thing: want a string, number, boolean or null"},
		{name: "complex key", yaml: "? [a]\n: 1\n", want: "f.yaml:1:3: a key must be a scalar, not a sequence"},
		{name: "alias inside its own anchor", yaml: "a: &x [1, *x]\n", want: "f.yaml:1:11: alias *x refers to a value that holds it"},
		{name: "merge of a scalar", yaml: "s: &s 1\nm: {<<: *s}\n", want: "f.yaml:2:9: a merge key (<<) takes a mapping or a list of mappings, not a number"},
		{name: "duplicate inside an anchor is reported once", yaml: "a: &a {k: 1, k: 2}\nb: *a\nc: *a\n", want: `f.yaml:1:14: duplicate key "k" (first at 1:8)`},
		{name: "billion laughs", yaml: laughs, want: "f.yaml:6:40: alias *e: aliases expand to more than 1048576 values, the limit for all the YAML files of one run"},
		{name: "too deep", yaml: strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), want: "f.yaml:1:101: nesting deeper than 100 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseYAML("f.yaml", []byte(tt.yaml), nil)
			if err == nil {
				t.Fatal("parsed, want an error")
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestYAMLAliasDepth(t *testing.T) {
	deep := strings.Repeat("[", 60) + strings.Repeat("]", 60)
	doc := "a: &a " + deep + "\nb: " + strings.Repeat("[", 50) + "*a" + strings.Repeat("]", 50) + "\n"
	_, err := ParseYAML("d.yaml", []byte(doc), nil)
	want := "d.yaml:2:54: alias *a: nesting deeper than 100 levels"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestYAMLAliasBudgetShared reads two files that alias expansion takes
// some 600,000 values to each: each alone is under MaxAliasValues, and so
// is each with a budget of its own, but with one budget for both the
// second is refused at the alias where the budget ran out.
func TestYAMLAliasBudgetShared(t *testing.T) {
	// *e copies 111,111 values; each of the five *d before it 11,111 (e
	// holds ten of them), each of the *c 1,111 and so on: 123,440 to make
	// the anchors and 555,555 for the five *e.
	doc := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for c := 'b'; c <= 'e'; c++ {
		doc += fmt.Sprintf("%c: &%c [%s*%c]\n", c, c, strings.Repeat("*"+string(c-1)+", ", 9), c-1)
	}
	doc += "f: [*e, *e, *e, *e, *e]\n"
	if _, err := ParseYAML("two.yaml", []byte(doc), nil); err != nil {
		t.Fatalf("a second file with a budget of its own: %v", err)
	}
	shared := NewBudget()
	if _, err := ParseYAML("one.yaml", []byte(doc), shared); err != nil {
		t.Fatalf("the first file: %v", err)
	}
	// 369,581 values are left: the anchors and two *e take 345,662.
	_, err := ParseYAML("two.yaml", []byte(doc), shared)
	want := "two.yaml:6:13: alias *e: aliases expand to more than 1048576 values, the limit for all the YAML files of one run"
	if err == nil || err.Error() != want {
		t.Errorf("the second file with the same budget: %v, want %s", err, want)
	}
}

func TestReadYAML(t *testing.T) {
	_, err := ReadYAML("testdata/no-such.cases.yaml", nil)
	if err == nil || err.Error() != "testdata/no-such.cases.yaml: no such file" {
		t.Errorf("got %v", err)
	}
}

// FuzzParseYAML checks that no input makes the YAML reader panic, that
// every position it reports lies inside the file, and that what it accepts
// has a plain value.
func FuzzParseYAML(f *testing.F) {
	f.Add([]byte("a: &a {k: [1, 2.5, x]}\nb: {<<: *a, k: ~}\n"))
	f.Add([]byte("- {x: 1, x: 2}\n- !!binary aGk=\n- .inf\n"))
	f.Add([]byte("? [a]\n: *missing\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := len(treetest.Lines(string(data)))
		root, err := ParseYAML("f.yaml", data, nil)
		if err != nil {
			for _, e := range err.(problem.Errors) {
				if e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.Col < 1 {
					t.Fatalf("error position %v outside the file (%d lines): %v", e.Pos, lines, e)
				}
			}
			return
		}
		walk(root, func(n *Node) {
			if n.Pos.Line < 1 || n.Pos.Line > lines || n.Pos.Col < 1 {
				t.Fatalf("value position %v outside the file", n.Pos)
			}
		})
		_ = root.Value()
	})
}
