package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
// of one long body: exit 2 at its first expression past the limit, before
// OPA's compiler sees the module. The allocation bound of a run on a
// hostile file of the module's size (some 35 MiB; parsing it takes some
// 30) holds that: compiling the body, which took 15 s, allocates some
// 60 MiB more, so a limit checked after the compile fails here.
func TestHostileRegoBodies(t *testing.T) {
	const n = 16_000
	size := len(longBody("hcp.ext", n))
	check := func(t *testing.T, o outcome, want *regexp.Regexp) {
		t.Helper()
		if o.code != exitBadInput || !want.MatchString(o.stderr) {
			t.Errorf("exit %d, stdout %.300q, stderr %.300q; want exit 2 and %s", o.code, o.stdout, o.stderr, want)
		}
	}
	t.Run("eval --ext", func(t *testing.T) {
		dir, _ := fixture(t, nil)
		path := filepath.Join(dir, "ext.rego")
		if err := os.WriteFile(path, []byte(longBody("hcp.ext", n)), 0o644); err != nil {
			t.Fatal(err)
		}
		o := runInProcess(t, size, "eval", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"),
			"--input", filepath.Join(dir, "input.json"), "--ext", path)
		check(t, o, regexp.MustCompile(`^`+regexp.QuoteMeta(path)+bodyLimit+`\n$`))
	})
	t.Run("eval --bundle", func(t *testing.T) {
		dir, _ := fixture(t, nil)
		bundle := oneModule(t, dir, "/hcp/ext/x.rego", longBody("hcp.ext", n))
		o := runInProcess(t, size, "eval", "--bundle", bundle, "--input", filepath.Join(dir, "input.json"))
		check(t, o, regexp.MustCompile(`^`+regexp.QuoteMeta(bundle)+`: bundle refused: hcp/ext/x\.rego`+bodyLimit+`\n$`))
	})
	t.Run("test", func(t *testing.T) {
		dir, _ := fixture(t, nil)
		path := filepath.Join(dir, "long_test.rego")
		if err := os.WriteFile(path, []byte(longBody("hcp.long_test", n)), 0o644); err != nil {
			t.Fatal(err)
		}
		o := runInProcess(t, size, "test", dir)
		check(t, o, regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(path)+bodyLimit+`$`))
	})
}
