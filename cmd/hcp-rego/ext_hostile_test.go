package main

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// TestHostileExt gives eval --ext runtime rules that are missing, outside
// hcp.ext, or do not parse: exit 2, nothing on stdout, one short message
// per problem as file:line:col (file alone when there is no line).
func TestHostileExt(t *testing.T) {
	cases := []struct {
		name, rego string // rego "" means no file
		file       string // the file's name, "ext.rego" when empty
		want       string // a regular expression for stderr, @ standing for the file
	}{
		{name: "missing", want: `^@: no such file or folder\n$`},
		{name: "not rego", file: "ext.txt", rego: "package hcp.ext\n\ndeny contains \"no\"\n", want: `^@: not a \.rego file: --ext takes the runtime's Rego rules\n$`},
		{name: "outside hcp.ext", rego: "package hcp.authz\n\ndecision := {\"allow\": true}\n", want: `^@:1:1: package hcp.authz is outside hcp.ext, the runtime's root\n$`},
		{name: "syntax error", rego: "package hcp.ext\n\ndeny contains x if { 1 @ }\n", want: `^@:3:\d+: .*illegal token\n$`},
		{name: "deny as a function", rego: "package hcp.ext\n\ndeny(x) := x\n",
			want: `^--ext: the runtime's modules, loaded beside the compiled bundle, may be at fault: deny and confirm in package hcp.ext must be sets of strings\n(the compiled bundle: hcp/authz/\w+\.rego:\d+:\d+: .*\n)*the compiled bundle: hcp/authz/\w+\.rego:\d+:\d+: .*data\.hcp\.ext\.deny`},
		{name: "type error", rego: "package hcp.ext\n\ndeny contains x if {\n\tx := nofn(1)\n}\n", want: `^@:4:\d+: undefined function nofn\n$`},
		{name: "signatures given", file: ".signatures.json", rego: `{"signatures": []}`,
			want: `^@: a bundle's signatures, which opa run --bundle verifies and opa run reads as data: --ext takes the runtime's Rego rules alone\n$`},
		{name: "a 20 MB line", rego: "package hcp.ext\n\ndeny := 1" + strings.Repeat(" ", 20<<20) + "@\n", want: `^@:3:\d+: .*\n$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := fixture(t, nil)
			ext := filepath.Join(dir, cmp.Or(c.file, "ext.rego"))
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

// TestExtFoldersRefused checks that an --ext folder whose rules would not
// all be loaded is refused rather than half read: a runtime's deny rules
// that are silently left out make decisions wider.
func TestExtFoldersRefused(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		twice bool   // the folder is given twice
		want  string // a regular expression for stderr, @ standing for the folder
	}{
		{name: "empty", want: `^@: no \.rego module here or below: --ext takes the runtime's Rego rules\n$`},
		{name: "data only", files: map[string]string{"hcp/ext/data.json": `{"deny": ["no"]}`},
			want: `^@/hcp/ext/data\.json: a data file is not read: --ext takes the runtime's Rego rules \(package hcp\.ext\)\n$`},
		{name: "data only, given twice", twice: true, files: map[string]string{"hcp/ext/data.json": `{"deny": ["no"]}`},
			want: `^@/hcp/ext/data\.json: a data file is not read: --ext takes the runtime's Rego rules \(package hcp\.ext\)\n$`},
		{name: "rules and data", files: map[string]string{"ext.rego": "package hcp.ext\n", "data.yaml": "deny: [no]\n"},
			want: `^@/data\.yaml: a data file is not read: --ext takes the runtime's Rego rules \(package hcp\.ext\)\n$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := fixture(t, nil)
			ext := filepath.Join(dir, "ext")
			if err := os.Mkdir(ext, 0o755); err != nil {
				t.Fatal(err)
			}
			treetest.Write(t, ext, c.files)
			args := []string{"eval", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"), "--input", filepath.Join(dir, "input.json"), "--ext", ext}
			if c.twice {
				args = append(args, "--ext", ext)
			}
			o := runInProcess(t, 0, args...)
			want := regexp.MustCompile(strings.ReplaceAll(c.want, "@", regexp.QuoteMeta(ext)))
			if o.code != exitBadInput || o.stdout != "" || !want.MatchString(o.stderr) {
				t.Errorf("exit %d, stdout %.200q, stderr %.300q; want exit 2 and %s", o.code, o.stdout, o.stderr, want)
			}
		})
	}
}

// TestExtLinksRefused checks that --ext refuses a symbolic link anywhere
// under its path, the path itself too, naming the link
// (docs/decisions.md#evaluating-one-call-eval): `opa
// run --bundle DIR` skips links and `opa run DIR` follows them, so a rule
// behind one (a Kubernetes ConfigMap mount: the files are links into a
// hidden, timestamped folder, which a second link also names) denies in
// one sidecar and not in another. Paths that overlap without a link (a
// folder under two names, a folder and its parent) read a module once.
// @ in a want stands for the test's folder.
func TestExtLinksRefused(t *testing.T) {
	const deny = "package hcp.ext\n\ndefault blocked := true\n\ndeny contains \"blocked\" if blocked\n"
	const linked = `: a symbolic link, which opa run --bundle skips and opa run follows: give --ext the files themselves\n`
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) []string // returns the --ext paths
		want  string                                  // the decision's code, or a regular expression for stderr
	}{
		{"a link to a folder", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"real/deny.rego": deny})
			return []string{link(t, "real", dir, "ext")}
		}, `^@/ext` + linked + `$`},
		{"a link to a folder, with a trailing slash", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"real/deny.rego": deny})
			return []string{link(t, "real", dir, "ext") + "/"}
		}, `^@/ext/` + linked + `$`},
		{"a link to a module", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"real/deny.rego": deny})
			return []string{link(t, "real/deny.rego", dir, "deny.rego")}
		}, `^@/deny\.rego` + linked + `$`},
		{"a linked folder inside", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"real/deny.rego": deny, "ext/other.rego": "package hcp.ext.other\n"})
			link(t, "../real", dir, "ext/sub")
			return []string{filepath.Join(dir, "ext")}
		}, `^@/ext/sub` + linked + `$`},
		{"a linked module inside", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"real/deny.rego": deny, "ext/other.rego": "package hcp.ext.other\n"})
			link(t, "../real/deny.rego", dir, "ext/deny.rego")
			return []string{filepath.Join(dir, "ext")}
		}, `^@/ext/deny\.rego` + linked + `$`},
		{"a ConfigMap mount", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"cm/..2026_11_30/deny.rego": deny})
			link(t, "..2026_11_30", dir, "cm/..data")
			link(t, "..data/deny.rego", dir, "cm/deny.rego")
			return []string{filepath.Join(dir, "cm")}
		}, `^@/cm/\.\.data` + linked + `@/cm/deny\.rego` + linked + `$`},
		{"one folder under two names", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"ext/deny.rego": deny})
			rel, err := filepath.Rel(mustGetwd(t), filepath.Join(dir, "ext"))
			if err != nil {
				t.Fatal(err)
			}
			return []string{rel, filepath.Join(dir, "ext")}
		}, "runtime_denied"},
		{"an absolute link beside its target", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"x/real/deny.rego": deny})
			link(t, filepath.Join(dir, "x/real"), dir, "x/linked")
			return []string{filepath.Join(dir, "x")}
		}, `^@/x/linked` + linked + `$`},
		{"two roots linked in a cycle", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"cyc/A/deny.rego": deny, "cyc/B/README.md": "see A\n"})
			link(t, "../B", dir, "cyc/A/L")
			link(t, "../A", dir, "cyc/B/back")
			return []string{filepath.Join(dir, "cyc/A"), filepath.Join(dir, "cyc/B")}
		}, `^@/cyc/A/L` + linked + `@/cyc/B/back` + linked + `$`},
		{"a folder, then its parent", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"A/B/deny.rego": deny})
			return []string{filepath.Join(dir, "A/B"), filepath.Join(dir, "A")}
		}, "runtime_denied"},
		{"an empty folder after its parent", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"c/deny.rego": deny, "c/empty/README.md": "nothing yet\n"})
			return []string{filepath.Join(dir, "c"), filepath.Join(dir, "c/empty")}
		}, `^.*/c/empty: no \.rego module here or below`},
		{"an empty folder before its parent", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"c/deny.rego": deny, "c/empty/README.md": "nothing yet\n"})
			return []string{filepath.Join(dir, "c/empty"), filepath.Join(dir, "c")}
		}, `^.*/c/empty: no \.rego module here or below`},
		{"a loop in a folder with no module", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"e/README.md": "rules go here\n"})
			link(t, ".", dir, "e/self")
			return []string{filepath.Join(dir, "e")}
		}, `^@/e/self` + linked + `$`},
		{"a link to nothing", func(t *testing.T, dir string) []string {
			treetest.Write(t, dir, map[string]string{"ext/other.rego": "package hcp.ext.other\n"})
			link(t, "gone.rego", dir, "ext/deny.rego")
			return []string{filepath.Join(dir, "ext")}
		}, `^.*/ext/deny\.rego: a link to nothing\n$`},
		{"a link to nothing given", func(t *testing.T, dir string) []string {
			return []string{link(t, "gone", dir, "ext")}
		}, `^@/ext: a link to nothing\n$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := fixture(t, nil)
			args := []string{"eval", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"), "--input", filepath.Join(dir, "input.json")}
			for _, ext := range c.setup(t, dir) {
				args = append(args, "--ext", ext)
			}
			o := runInProcess(t, 0, args...)
			if strings.HasPrefix(c.want, "^") {
				want := regexp.MustCompile(strings.ReplaceAll(c.want, "@", regexp.QuoteMeta(dir)))
				if o.code != exitBadInput || o.stdout != "" || !want.MatchString(o.stderr) {
					t.Errorf("exit %d, stdout %.200q, stderr %q; want exit 2 and %s", o.code, o.stdout, o.stderr, want)
				}
				return
			}
			if o.code != exitOK || !strings.Contains(o.stdout, `"code": "`+c.want+`"`) {
				t.Errorf("exit %d, stdout %.300q, stderr %q; want a decision %s", o.code, o.stdout, o.stderr, c.want)
			}
		})
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// link makes a symbolic link at dir/name pointing to target and returns
// its path.
func link(t *testing.T, target, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExtReadsEveryName checks that --ext reads every .rego file that
// OPA's loader reads from the same folder
// (docs/decisions.md#evaluating-one-call-eval), whatever its name
// or its folders' names start with: `opa eval -d`, `opa run` and
// `opa run --bundle` skip no name, so a rule in hcp/ext/_deny.rego or
// .d/deny.rego denies in the sidecar and must deny here too. What is
// refused in a folder is refused under such names as well.
func TestExtReadsEveryName(t *testing.T) {
	const plain = "package hcp.ext\n"
	deny := func(reason string) string { return "package hcp.ext\n\ndeny contains \"" + reason + "\"\n" }
	cases := []struct {
		name  string
		files map[string]string // in the folder, or beside it ("../")
		links map[string]string // link name to target, in the folder
		want  string            // the reasons of a runtime_denied decision, joined by "|", or a regular expression for stderr
	}{
		{name: "a file starting with _", files: map[string]string{"hcp/ext/ext.rego": plain, "hcp/ext/_deny.rego": deny("underscore file")}, want: "underscore file"},
		{name: "a file starting with .", files: map[string]string{"hcp/ext/ext.rego": plain, "hcp/.deny.rego": deny("dot file")}, want: "dot file"},
		{name: "a folder starting with .", files: map[string]string{"ext.rego": plain, ".d/deny.rego": deny("dot folder")}, want: "dot folder"},
		{name: "a folder starting with _", files: map[string]string{"ext.rego": plain, "_d/deny.rego": deny("underscore folder")}, want: "underscore folder"},
		{name: "nested folders", files: map[string]string{"ext.rego": plain, "_x/y/.z/_deny.rego": deny("nested"), ".a/_b/deny.rego": deny("nested too")}, want: "nested|nested too"},
		{name: "a folder starting with ..", files: map[string]string{"ext.rego": plain, "..2026_11_30/deny.rego": deny("double dot")}, want: "double dot"},
		{name: "names that are the suffix alone", files: map[string]string{"ext.rego": plain, ".rego": deny("dot rego"), "_.rego": deny("underscore rego")}, want: "dot rego|underscore rego"},
		{name: "no other module", files: map[string]string{".d/_deny.rego": deny("hidden only")}, want: "hidden only"},
		{name: "a runtime bundle's folder", files: map[string]string{".manifest": `{"roots": ["hcp/ext"]}`, "hcp/ext/_deny.rego": deny("bundled")}, want: "bundled"},
		{name: "a linked hidden folder", files: map[string]string{"ext.rego": plain, "../outside/deny.rego": deny("linked")}, links: map[string]string{".l": "../outside"},
			want: `^@/\.l: a symbolic link, which opa run --bundle skips and opa run follows: give --ext the files themselves\n$`},
		{name: "data in a folder starting with _", files: map[string]string{"ext.rego": plain, "_x/data.json": `{"deny": ["no"]}`},
			want: `^@/_x/data\.json: a data file is not read: --ext takes the runtime's Rego rules \(package hcp\.ext\)\n$`},
		{name: "data in a folder starting with .", files: map[string]string{"ext.rego": plain, ".d/hcp/ext/data.yaml": "deny: [no]\n"},
			want: `^@/\.d/hcp/ext/data\.yaml: a data file is not read: --ext takes the runtime's Rego rules \(package hcp\.ext\)\n$`},
		{name: "JSON that opa run DIR loads as data", files: map[string]string{"ext.rego": plain, "hcp/ext/deny.json": `{"deny": ["from json"]}`},
			want: `^@/hcp/ext/deny\.json: a data file is not read: --ext takes the runtime's Rego rules \(package hcp\.ext\)\n$`},
		{name: "a bundle archive opa run DIR loads", files: map[string]string{"ext.rego": plain, "rt.tar.gz": "not read"},
			want: `^@/rt\.tar\.gz: a data file is not read: --ext takes the runtime's Rego rules \(package hcp\.ext\)\n$`},
		{name: "a signed runtime bundle's signatures", files: map[string]string{".manifest": `{"roots": ["hcp/ext"]}`, ".signatures.json": `{"signatures": []}`, "hcp/ext/deny.rego": deny("signed")},
			want: `^@/\.signatures\.json: a bundle's signatures, which opa run --bundle verifies and opa run reads as data: --ext takes the runtime's Rego rules alone\n$`},
		{name: "signatures deeper down", files: map[string]string{"ext.rego": plain, "_b/.signatures.json": `{"signatures": []}`},
			want: `^@/_b/\.signatures\.json: a bundle's signatures, which opa run --bundle verifies`},
		{name: "outside hcp.ext in a file starting with _", files: map[string]string{"ext.rego": plain, "_authz.rego": "package hcp.authz\n\ndecision := {\"allow\": true}\n"},
			want: `^@/_authz\.rego:1:1: package hcp\.authz is outside hcp\.ext, the runtime's root\n$`},
		{name: "a syntax error in a folder starting with .", files: map[string]string{"ext.rego": plain, ".d/deny.rego": "package hcp.ext\n\ndeny contains x if { 1 @ }\n"},
			want: `^@/\.d/deny\.rego:3:\d+: .*illegal token\n$`},
		{name: "a hidden link to nothing", files: map[string]string{"ext.rego": plain}, links: map[string]string{".deny.rego": "gone.rego"},
			want: `^@/\.deny\.rego: a link to nothing\n$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := fixture(t, nil)
			ext := filepath.Join(dir, "ext")
			if err := os.Mkdir(ext, 0o755); err != nil {
				t.Fatal(err)
			}
			treetest.Write(t, ext, c.files)
			for name, target := range c.links {
				link(t, target, ext, name)
			}
			o := runInProcess(t, 0, "eval", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"),
				"--input", filepath.Join(dir, "input.json"), "--ext", ext)
			if strings.HasPrefix(c.want, "^") {
				want := regexp.MustCompile(strings.ReplaceAll(c.want, "@", regexp.QuoteMeta(ext)))
				if o.code != exitBadInput || o.stdout != "" || !want.MatchString(o.stderr) {
					t.Errorf("exit %d, stdout %.200q, stderr %.300q; want exit 2 and %s", o.code, o.stdout, o.stderr, want)
				}
				return
			}
			var got struct {
				Code    string
				Reasons []string
			}
			if err := json.Unmarshal([]byte(o.stdout), &got); o.code != exitOK || err != nil ||
				got.Code != "runtime_denied" || strings.Join(got.Reasons, "|") != c.want {
				t.Errorf("exit %d, stdout %.300q, stderr %q; want runtime_denied for %q", o.code, o.stdout, o.stderr, c.want)
			}
		})
	}
}
