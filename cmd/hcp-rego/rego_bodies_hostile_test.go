package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// longBody is a module of package pkg whose one rule's body holds n
// assignments: 16,000 of them (250 KB, within the limit of terms) took
// OPA's compiler 15.5 s.
func longBody(pkg string, n int) string {
	var b strings.Builder
	b.WriteString("package " + pkg + "\n\ndeny contains \"x\" if {\n")
	for i := range n {
		fmt.Fprintf(&b, "\tv%d := %d\n", i, i)
	}
	b.WriteString("\tfalse\n}\n")
	return b.String()
}

// bodyLimit is the end of the refusal of a body past the limit, at the
// 257th expression (line 260).
const bodyLimit = `:260:2: Rego refused: a body of 16001 expressions, more than the limit of 256 \(OPA compiles a body in time that grows with the square of its length\)`

// TestHostileRegoBodies gives eval --ext, eval --bundle and test a module
// of one long body: exit 2 at its first expression past the limit, in
// well under a second, where compiling it took 15 s.
func TestHostileRegoBodies(t *testing.T) {
	const n = 16_000
	check := func(t *testing.T, o outcome, want *regexp.Regexp) {
		t.Helper()
		if o.code != exitBadInput || !want.MatchString(o.stderr) || o.elapsed > 5*time.Second {
			t.Errorf("exit %d in %v, stdout %.300q, stderr %.300q; want exit 2 and %s", o.code, o.elapsed, o.stdout, o.stderr, want)
		}
	}
	t.Run("eval --ext", func(t *testing.T) {
		dir, _ := fixture(t, nil)
		path := filepath.Join(dir, "ext.rego")
		if err := os.WriteFile(path, []byte(longBody("hcp.ext", n)), 0o644); err != nil {
			t.Fatal(err)
		}
		o := runInProcess(t, 0, "eval", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"),
			"--input", filepath.Join(dir, "input.json"), "--ext", path)
		check(t, o, regexp.MustCompile(`^`+regexp.QuoteMeta(path)+bodyLimit+`\n$`))
	})
	t.Run("eval --bundle", func(t *testing.T) {
		dir, _ := fixture(t, nil)
		bundle := oneModule(t, dir, "/hcp/ext/x.rego", longBody("hcp.ext", n))
		o := runInProcess(t, 0, "eval", "--bundle", bundle, "--input", filepath.Join(dir, "input.json"))
		check(t, o, regexp.MustCompile(`^`+regexp.QuoteMeta(bundle)+`: bundle refused: hcp/ext/x\.rego`+bodyLimit+`\n$`))
	})
	t.Run("test", func(t *testing.T) {
		dir, _ := fixture(t, nil)
		path := filepath.Join(dir, "long_test.rego")
		if err := os.WriteFile(path, []byte(longBody("hcp.long_test", n)), 0o644); err != nil {
			t.Fatal(err)
		}
		o := runInProcess(t, 0, "test", dir)
		check(t, o, regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(path)+bodyLimit+`$`))
	})
}
