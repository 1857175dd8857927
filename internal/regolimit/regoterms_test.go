package regolimit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// hostileShapes are Rego modules of n elements in the shapes that make
// many terms of a few bytes each.
func hostileShapes(n int) map[string]string {
	list := func(f func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = f(i)
		}
		return strings.Join(parts, ",")
	}
	lines := func(f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i) + "\n")
		}
		return b.String()
	}
	const pkg = "package hcp.ext\n\n"
	return map[string]string{
		"array":          pkg + "x := [" + list(func(int) string { return "0" }) + "]\n",
		"set":            pkg + "x := {" + list(func(i int) string { return fmt.Sprint(i) }) + "}\n",
		"object":         pkg + "x := {" + list(func(i int) string { return fmt.Sprintf("%q:0", fmt.Sprint(i)) }) + "}\n",
		"strings":        pkg + "x := [" + list(func(int) string { return `"a"` }) + "]\n",
		"nested":         pkg + "x := " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n",
		"nested objects": pkg + "x := " + strings.Repeat(`{"a":`, n) + "0" + strings.Repeat("}", n) + "\n",
		"rules":          pkg + lines(func(i int) string { return fmt.Sprintf("r%d := 0", i) }),
		"rule bodies":    pkg + lines(func(i int) string { return fmt.Sprintf("deny contains \"x\" if { input.a%d }", i) }),
		"ref":            pkg + "x := input" + strings.Repeat(".a", n) + "\n",
		"brackets ref":   pkg + "x := input" + strings.Repeat("[0]", n) + "\n",
		"some in":        pkg + "x if {\n" + lines(func(i int) string { return fmt.Sprintf("some v%d in input", i) }) + "}\n",
		"sums":           pkg + "x := [" + list(func(int) string { return "1+1+1" }) + "]\n",
		"calls":          pkg + "x := [" + list(func(int) string { return "f(0)" }) + "]\nf(a) := a\n",
		"comprehensions": pkg + "x := [" + list(func(int) string { return "[y | some y in input]" }) + "]\n",
		"templates":      pkg + "x := [" + list(func(int) string { return `$"a{input.a}b{0}"` }) + "]\n",
		"every":          pkg + "x if {\n" + lines(func(i int) string { return fmt.Sprintf("every v%d in input { v%d }", i, i) }) + "}\n",
		"with":           pkg + "x if {\n" + lines(func(i int) string { return fmt.Sprintf("input.a with input as %d", i) }) + "}\n",
		"negations":      pkg + "x := [" + list(func(int) string { return "-input.a" }) + "]\n",
		"memberships":    pkg + "x := [" + list(func(int) string { return "0 in input" }) + "]\n",
		"some k, v in":   pkg + "x if {\n" + lines(func(i int) string { return fmt.Sprintf("some k%d, v%d in input", i, i) }) + "}\n",
		"functions":      pkg + lines(func(i int) string { return fmt.Sprintf("f%d(a) := b if { b := a } else := 1", i) }),
		"not":            pkg + "x if {\n" + lines(func(i int) string { return fmt.Sprintf("not input[%d]", i) }) + "}\n",
		"calls of set()": pkg + "x := [" + list(func(int) string { return "set()" }) + "]\n",
		"wildcards":      pkg + "x if {\n" + lines(func(int) string { return "input[_][_]" }) + "}\n",
		"defaults":       pkg + lines(func(i int) string { return fmt.Sprintf("default d%d := -1", i) }),
	}
}

// parsedTerms is how many terms OPA's parser builds for the module src.
func parsedTerms(t *testing.T, src string) int64 {
	t.Helper()
	mod, err := ast.ParseModuleWithOpts("x.rego", src, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	var n int64
	ast.WalkTerms(mod, func(*ast.Term) bool { n++; return false })
	return n
}

// TestRegoTermsBoundsParsedTerms checks that RegoTerms never counts fewer
// terms than OPA's parser builds, for hostile shapes and for the embedded
// library, and no more than a small factor more (six times, for
// `default d := -1`, whose keyword counts as a variable and unary minus
// as an operator).
func TestRegoTermsBoundsParsedTerms(t *testing.T) {
	shapes := hostileShapes(300)
	library, err := filepath.Glob("../../rego/library/*.rego")
	if err != nil || len(library) == 0 {
		t.Fatalf("the library: %v", err)
	}
	for _, file := range library {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		shapes[filepath.Base(file)] = string(data)
	}
	for name, src := range shapes {
		t.Run(name, func(t *testing.T) {
			counted, at := RegoTerms([]byte(src), 1<<62)
			parsed := parsedTerms(t, src)
			t.Logf("counted %d, parsed %d", counted, parsed)
			if at != -1 || counted < parsed || counted > 6*parsed {
				t.Errorf("counted %d terms (stopped at %d) for %d parsed; want from %d to %d", counted, at, parsed, parsed, 6*parsed)
			}
		})
	}
}

// TestRegoTermsLexical checks that RegoTerms reads text as OPA's scanner
// does: each text counts as the plainer one it is like. A "#" in a string
// starts no comment, a comment counts one whatever it holds, a quote in a
// comment or a raw string starts no string, escapes are skipped as the scanner skips them, and a template
// string's expressions count as code (a template counts two terms and a
// part one, like "s" "s").
func TestRegoTermsLexical(t *testing.T) {
	tests := []struct{ name, src, like string }{
		{"a # in a string", "x := \"a#b\"\ny := [0,0]", "x := \"s\"\ny := [0,0]"},
		{"a quote in a comment", "# \"\nx := [0]", "#\nx := [0]"},
		{"a comment", "x := 1 # [0, 0, 0]\n", "x := 1 #"},
		{"a raw string", "x := `a\"#b`\ny := 1", "x := \"s\"\ny := 1"},
		{"a raw string across lines", "x := `a\n#b\"`\ny := 1", "x := \"s\"\ny := 1"},
		{"an escaped quote", `x := "a\"#[0]" [0]`, `x := "s" [0]`},
		{"an escaped backslash", `x := "a\\" [0]`, `x := "s" [0]`},
		{"a \\u escape skips four", `x := "\u0022 [0]"`, `x := "s"`},
		{"a line ends a string", "x := \"a\n[0]", "x := \"s\"\n[0]"},
		{"a template", `x := $"a{[0, 1]}b#c{y}"`, `x := "s" "s" [0, 1] "s" y "s"`},
		{"a template's escapes", `x := $"a\{[0]\"{1}"`, `x := "s" "s" 1 "s"`},
		{"a raw template", "x := $`a\\{[0]{1}#`", `x := "s" "s" 1 "s"`},
		{"a template in a template", `x := $"a{$"b{[0]}"}"`, `x := "s" "s" "s" "s" [0] "s" "s"`},
		{"braces in a template's expression", `x := $"{ {1: 2}[1] }#[0]"`, `x := "s" "s" {1: 2}[1] "s"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, at := RegoTerms([]byte(tt.src), 1<<62)
			like, _ := RegoTerms([]byte(tt.like), 1<<62)
			if n != like || at != -1 {
				t.Errorf("RegoTerms(%q) = %d (stopped at %d); want %d, as %q", tt.src, n, at, like, tt.like)
			}
		})
	}
}

// TestRegoTermsWeights checks what each token counts.
func TestRegoTermsWeights(t *testing.T) {
	tests := []struct {
		src  string
		want int64
	}{
		{"[0,0,0]", 4},              // [ and three numbers
		{"1.5e3", 2},                // two numbers, more than the one built
		{`"s" ` + "`r`", 2},         // strings
		{"input.a.b", 6},            // identifiers, two each: a variable, and the reference it may stand in
		{"x := 1", 6},               // an operator: a call of a reference to a variable
		{"a == b != c", 12},         // two-character operators count once
		{`{"a": 0}`, 3},             // a colon counts nothing
		{"f(0)", 5},                 // a call and its reference
		{"0 in x", 7},               // internal.member_2(0, x): a call, a reference, a variable and a string
		{"# [0,0]\n; , . ] } )", 1}, // a comment counts one (OPA keeps each), the rest builds nothing
		{`$"a{0}b"`, 4},             // a template: the template and its first part, 0, and its last part
	}
	for _, tt := range tests {
		if n, _ := RegoTerms([]byte(tt.src), 1<<62); n != tt.want {
			t.Errorf("RegoTerms(%q) = %d; want %d", tt.src, n, tt.want)
		}
	}
}

// TestRegoTermsLimit checks the edge: a text of exactly limit terms
// passes, and at limit-1 the count stops at the token that passes it.
func TestRegoTermsLimit(t *testing.T) {
	src := []byte("[0,0,7]")
	if n, at := RegoTerms(src, 4); n != 4 || at != -1 {
		t.Errorf("at the limit: %d terms, stopped at %d; want 4 and -1", n, at)
	}
	if _, at := RegoTerms(src, 3); at != 5 {
		t.Errorf("one over: stopped at %d; want 5, the 7", at)
	}
}

// TestTermBudget checks that a budget counts the terms of every text it
// takes, in total, refuses the one that passes it at the token that does,
// and counts nothing of a text it refuses.
func TestTermBudget(t *testing.T) {
	b := NewTermBudgetOf(10)
	if err := b.Take("a.rego", []byte("[0,0]")); err != nil { // 3
		t.Fatalf("a.rego: %v", err)
	}
	err := b.Take("b.rego", []byte("[0]\n[0,0,0,0,0]")) // 7 more pass, the last 0 does not
	var e *problem.Error
	want := "b.rego:2:10: Rego refused: the modules read take more than the limit of 10 terms in all (identifiers, numbers, strings, brackets and operators), here"
	if !errors.As(err, &e) || err.Error() != want {
		t.Errorf("b.rego: %v; want %s", err, want)
	}
	if err := b.Take("c.rego", []byte("[0,0,0,0,0,0]")); err != nil { // the 7 left
		t.Errorf("c.rego: %v; want it read, b.rego counting nothing", err)
	}
	if err := b.Take("d.rego", []byte("0")); err == nil {
		t.Errorf("d.rego read; want it refused at the limit of 10")
	}
	if err := NewTermBudgetOf(3).Take("e.rego", []byte("[0,0]")); err != nil {
		t.Errorf("a text at the limit: %v", err)
	}
}
