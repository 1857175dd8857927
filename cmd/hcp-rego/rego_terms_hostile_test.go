package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// zerosModule is a module of package pkg whose one rule is an array of
// n zeros: n terms in 2n bytes, each of which OPA's parser and compiler
// would hold in some 1.2 KB.
func zerosModule(pkg string, n int) string {
	return "package " + pkg + "\n\nx := [" + strings.Repeat("0,", n-1) + "0]\n"
}

// hostileZeros is 1.5 million terms in 3 MB, past the limit of 1,048,576
// terms of the modules one run reads: parsed, it costs some 1.8 GB.
// hostileBundleZeros is half as many again as the default limit of a
// bundle's modules (1,572,864 terms in 3 MB, past 1,048,576, the same as
// a run's): parsed, some 1.9 GB.
const (
	hostileZeros       = 1_500_000
	hostileBundleZeros = bundles.MaxTerms + bundles.MaxTerms/2
)

// termLimit is the end of the refusal of Rego past the run's limit.
const termLimit = `Rego refused: the modules read take more than the limit of 1048576 terms in all \(identifiers, numbers, strings, brackets and operators\), here\n$`

// TestHostileRegoTerms gives eval --ext, eval --bundle and test a Rego
// module of many terms in few bytes (an array of zeros): exit 2 at the
// token that passes the limit of terms, named, and the run allocates no
// more than reading the file costs, where parsing it would allocate
// gigabytes.
func TestHostileRegoTerms(t *testing.T) {
	ext := zerosModule("hcp.ext", hostileZeros)
	t.Run("eval --ext", func(t *testing.T) {
		dir, _ := fixture(t, nil)
		path := filepath.Join(dir, "ext.rego")
		if err := os.WriteFile(path, []byte(ext), 0o644); err != nil {
			t.Fatal(err)
		}
		o := runInProcess(t, len(ext), "eval", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"),
			"--input", filepath.Join(dir, "input.json"), "--ext", path)
		want := regexp.MustCompile(`^` + regexp.QuoteMeta(path) + `:3:\d+: ` + termLimit)
		if o.code != exitBadInput || o.stdout != "" || !want.MatchString(o.stderr) {
			t.Errorf("exit %d, stdout %q, stderr %.300q; want exit 2 and %s", o.code, o.stdout, o.stderr, want)
		}
	})
	t.Run("eval --bundle", func(t *testing.T) {
		dir, _ := fixture(t, nil)
		module := zerosModule("hcp.ext", hostileBundleZeros)
		bundle := oneModule(t, dir, "/hcp/ext/x.rego", module)
		o := runInProcess(t, len(module), "eval", "--bundle", bundle, "--input", filepath.Join(dir, "input.json"))
		want := regexp.MustCompile(`^` + regexp.QuoteMeta(bundle) + `: bundle refused: hcp/ext/x\.rego:3:\d+ takes its Rego modules past the limit of ` + fmt.Sprint(bundles.DefaultLimits.Terms) + ` terms in all \(identifiers, numbers, strings, brackets and operators\); --max-bundle-bytes raises it\n$`)
		if o.code != exitBadInput || o.stdout != "" || !want.MatchString(o.stderr) {
			t.Errorf("exit %d, stdout %q, stderr %.300q; want exit 2 and %s", o.code, o.stdout, o.stderr, want)
		}
	})
	t.Run("test", func(t *testing.T) {
		dir, _ := fixture(t, nil)
		tests := zerosModule("hcp.hostile_test", hostileZeros)
		path := filepath.Join(dir, "hostile_test.rego")
		if err := os.WriteFile(path, []byte(tests), 0o644); err != nil {
			t.Fatal(err)
		}
		o := runInProcess(t, len(tests), "test", dir)
		want := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(path) + `:3:\d+: ` + strings.TrimSuffix(termLimit, `\n$`) + `$`)
		if o.code != exitBadInput || !want.MatchString(o.stderr) {
			t.Errorf("exit %d, stdout %.300q, stderr %.300q; want exit 2 and %s", o.code, o.stdout, o.stderr, want)
		}
	})
}
