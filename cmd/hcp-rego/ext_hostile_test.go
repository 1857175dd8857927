package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHostileExt gives eval --ext runtime rules that are missing, outside
// hcp.ext, or do not parse: exit 2, nothing on stdout, one short message
// per problem as file:line:col (file alone when there is no line).
func TestHostileExt(t *testing.T) {
	cases := []struct {
		name, rego string // rego "" means no file
		want       string // a regular expression for stderr, @ standing for the file
	}{
		{name: "missing", want: `^@: no such file or folder\n$`},
		{name: "outside hcp.ext", rego: "package hcp.authz\n\ndecision := {\"allow\": true}\n", want: `^@:1:1: package hcp.authz is outside hcp.ext, the runtime's root\n$`},
		{name: "syntax error", rego: "package hcp.ext\n\ndeny contains x if { 1 @ }\n", want: `^@:3:\d+: .*illegal token\n$`},
		{name: "a 20 MB line", rego: "package hcp.ext\n\ndeny := 1" + strings.Repeat(" ", 20<<20) + "@\n", want: `^@:3:\d+: .*\n$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := fixture(t, nil)
			ext := filepath.Join(dir, "ext.rego")
			if c.rego != "" {
				if err := os.WriteFile(ext, []byte(c.rego), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			o := runInProcess(t, len(c.rego), "eval", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"),
				"--input", filepath.Join(dir, "input.json"), "--ext", ext)
			want := regexp.MustCompile(strings.ReplaceAll(c.want, "@", regexp.QuoteMeta(ext)))
			if o.code != exitBadInput || o.stdout != "" || !want.MatchString(o.stderr) {
				t.Errorf("exit %d, stdout %.200q, stderr %.300q (%d bytes); want exit 2 and %s", o.code, o.stdout, o.stderr, len(o.stderr), want)
			}
		})
	}
}
