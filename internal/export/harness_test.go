package export

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hcp-rego/hcp-rego/internal/matrix"
)

// harnessDir holds the harnesses' own npm packages, pinned by its
// package.json and package-lock.json (npm ci: .ci/run, make harness), and
// the node scripts that load exported files with them. Its name starts
// with "_" so that neither the go tool nor hcp-rego's pack discovery walks
// its node_modules.
const harnessDir = "testdata/_harness"

// pinnedHarnesses are the packages and versions the files are loaded with.
var pinnedHarnesses = map[string]string{"@google/gemini-cli-core": "0.61.0", "@openai/codex": "0.169.0"}

// needHarnesses returns the node binary, once the pinned packages are
// installed at their versions. Without node or the packages the test
// fails when CI is set (it must never be skipped there) and is skipped,
// saying why, otherwise.
func needHarnesses(t *testing.T) string {
	t.Helper()
	var manifest struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, filepath.Join(harnessDir, "package.json"), &manifest)
	if !reflect.DeepEqual(manifest.Dependencies, pinnedHarnesses) {
		t.Fatalf("%s/package.json pins %v, want %v", harnessDir, manifest.Dependencies, pinnedHarnesses)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		harnessUnavailable(t, "node is not on PATH: the harness tests need Node.js 20 or later")
	}
	for pkg, version := range pinnedHarnesses {
		path := filepath.Join(harnessDir, "node_modules", pkg, "package.json")
		if _, err := os.Stat(path); err != nil {
			harnessUnavailable(t, fmt.Sprintf("%s is not installed: run `make harness` (npm ci in internal/export/%s)", pkg, harnessDir))
		}
		var installed struct{ Version string }
		readJSON(t, path, &installed)
		if installed.Version != version {
			t.Fatalf("%s %s is installed, want %s: run `make harness`", pkg, installed.Version, version)
		}
	}
	return node
}

func harnessUnavailable(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why + " (CI is set: these tests must run)")
	}
	t.Skip(why)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// runHarness runs node script (in harnessDir) on request and decodes its
// result into result. HOME and TMPDIR are a fresh folder, so that no
// user's own Gemini CLI or Codex configuration is read.
func runHarness(t *testing.T, node, script string, request, result any) {
	t.Helper()
	dir := t.TempDir()
	reqFile, resFile := filepath.Join(dir, "request.json"), filepath.Join(dir, "result.json")
	data, err := json.Marshal(request)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(reqFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, reqFile, resFile)
	cmd.Dir = harnessDir
	cmd.Env = append(os.Environ(), "HOME="+home, "TMPDIR="+home, "NO_COLOR=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, out)
	}
	readJSON(t, resFile, result)
}

// harnessCase is one exported file and what the matrix says of its tools.
type harnessCase struct {
	name   string
	server string
	file   string
	tools  []Tool
	// unwritten are the tools the export's notes leave unwritten.
	unwritten map[string]bool
	// tampered marks a file changed by hand after export, which the
	// harness must be seen to read otherwise than the matrix says.
	tampered bool
}

// namedMatrix is a matrix to export from, with the server name its files
// use.
type namedMatrix struct {
	name, server string
	mx           *matrix.Matrix
}

// exampleMatrices are the matrices the export tests read: seed 004's
// example (server hub), and the example packs without a tenant and for
// tenant acme (server my-hub).
func exampleMatrices(t *testing.T) []namedMatrix {
	return []namedMatrix{
		{"seed004", "hub", seedMatrix(t)},
		{"packs", "my-hub", exampleMatrix(t, "")},
		{"packs-acme", "my-hub", exampleMatrix(t, "acme")},
	}
}

// harnessCases exports harness h's file for every subject of seed 004's
// example (server hub) and of the example packs without a tenant and for
// tenant acme (server my-hub), into dir.
func harnessCases(t *testing.T, h Harness, dir string) []harnessCase {
	t.Helper()
	var cases []harnessCase
	for _, ex := range exampleMatrices(t) {
		for _, subject := range ex.mx.Subjects {
			f, err := Export(ex.mx, subject, h, ex.server)
			if err != nil {
				t.Fatal(err)
			}
			tools, _, err := ToolsOf(ex.mx, subject)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, fmt.Sprintf("%d.toml", len(cases)))
			if err := os.WriteFile(file, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			cases = append(cases, harnessCase{name: ex.name + "/" + subject, server: ex.server, file: file, tools: tools, unwritten: unwrittenOf(f)})
		}
	}
	return cases
}

// unwrittenOf is the set of tools f's notes leave unwritten.
func unwrittenOf(f *File) map[string]bool {
	out := map[string]bool{}
	for _, n := range f.Notes {
		if n.Unwritten {
			out[n.Tool] = true
		}
	}
	return out
}

// hostileNames is a matrix whose tool names Gemini CLI registers under the
// name of another tool: x y as x_y, and a name over 63 characters
// shortened to one that another tool has as it is. Each pair allows one
// and denies the other, so a rule written for the allowed tool would
// allow the denied one.
func hostileNames() namedMatrix {
	long := strings.Repeat("a", 30) + strings.Repeat("b", 30)
	shortened := strings.Repeat("a", 22) + "..." + strings.Repeat("b", 30)
	return namedMatrix{"hostile", "hcp", handMatrix(
		[5]string{"p", "verb", "x y", "read", "deny"},
		[5]string{"p", "verb", "x_y", "read", "allow"},
		[5]string{"p", "verb", long, "read", "deny"},
		[5]string{"p", "verb", shortened, "read", "allow"},
		[5]string{"p", "verb", "keep", "read", "allow"},
	)}
}

// tamper adds a case whose file is data, written by hand.
func tamper(t *testing.T, cases []harnessCase, dir, name, server, data string, tools ...Tool) []harnessCase {
	t.Helper()
	file := filepath.Join(dir, fmt.Sprintf("%d.toml", len(cases)))
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(cases, harnessCase{name: "tampered/" + name, server: server, file: file, tools: tools, tampered: true})
}

// checkHarnessCase reports problems for each case and, for a tampered
// one, that the harness did see it otherwise than the matrix says.
func checkHarnessCase(t *testing.T, c harnessCase, problems []string) {
	t.Helper()
	switch {
	case c.tampered && len(problems) == 0:
		t.Errorf("%s: the harness read a file changed by hand as the matrix says; the test cannot fail", c.name)
	case c.tampered:
		t.Logf("%s: caught: %q", c.name, problems)
	case !c.tampered:
		for _, p := range problems {
			t.Errorf("%s: %s", c.name, p)
		}
	}
}

// geminiResult is what gemini.mjs reports for one policy file.
type geminiResult struct {
	Errors []string `json:"errors"`
	Tools  map[string]struct {
		Name     string `json:"name"`
		Decision string `json:"decision"`
		Source   string `json:"source"`
	} `json:"tools"`
}

// geminiDecision is the Gemini CLI decision for each disposition.
var geminiDecision = map[matrix.Disposition]string{matrix.Allow: "allow", matrix.Ask: "ask_user", matrix.Deny: "deny"}

// TestGeminiLoadsExports: Gemini CLI's own TOML policy loader loads every
// exported policy file with no error or warning, and its policy engine,
// built as Gemini CLI builds it, decides for the name Gemini CLI gives
// each MCP tool (mcp_<server>_<tool>) what the matrix says, by the
// file's rule. Hand-changed files (a decision Gemini does not know, a
// flipped decision) must be caught.
func TestGeminiLoadsExports(t *testing.T) {
	node := needHarnesses(t)
	dir := t.TempDir()
	cases := harnessCases(t, Gemini, dir)
	hostile := hostileNames()
	f, err := Export(hostile.mx, "role:x", Gemini, hostile.server)
	if err != nil {
		t.Fatal(err)
	}
	tools, _, _ := ToolsOf(hostile.mx, "role:x")
	file := filepath.Join(dir, "hostile.toml")
	if err := os.WriteFile(file, f.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, harnessCase{name: "hostile names", server: hostile.server, file: file, tools: tools, unwritten: unwrittenOf(f)})
	search := Tool{Name: "documents.search", Disposition: matrix.Allow}
	check := Tool{Name: "buildsite.command_check", Disposition: matrix.Deny}
	cases = tamper(t, cases, dir, "decision ask", "hub", "[[rule]]\nmcpName = \"hub\"\ntoolName = \"documents.search\"\ndecision = \"ask\"\npriority = 100\n", search)
	cases = tamper(t, cases, dir, "deny flipped", "hub", "[[rule]]\nmcpName = \"hub\"\ntoolName = \"buildsite.command_check\"\ndecision = \"allow\"\npriority = 100\n", check)
	cases = tamper(t, cases, dir, "dotted name turned", "hub", "[[rule]]\nmcpName = \"hub\"\ntoolName = \"documents_search\"\ndecision = \"allow\"\npriority = 100\n", search)

	type request struct {
		Policy string   `json:"policy"`
		Server string   `json:"server"`
		Tools  []string `json:"tools"`
	}
	var req []request
	for _, c := range cases {
		r := request{Policy: c.file, Server: c.server, Tools: []string{}}
		for _, tool := range c.tools {
			r.Tools = append(r.Tools, tool.Name)
		}
		req = append(req, r)
	}
	var res []geminiResult
	runHarness(t, node, "gemini.mjs", req, &res)
	if len(res) != len(cases) {
		t.Fatalf("%d results for %d files", len(res), len(cases))
	}
	for i, c := range cases {
		checkHarnessCase(t, c, geminiProblems(c, res[i]))
	}
}

func geminiProblems(c harnessCase, r geminiResult) []string {
	var problems []string
	for _, e := range r.Errors {
		problems = append(problems, "loading: "+e)
	}
	for _, tool := range c.tools {
		got, ok := r.Tools[tool.Name]
		want := geminiDecision[tool.Disposition]
		switch {
		case !ok:
			problems = append(problems, tool.Name+": no decision reported")
		case c.unwritten[tool.Name] && got.Decision == "allow" && want != "allow":
			problems = append(problems, fmt.Sprintf("%s: unwritten, Gemini CLI decides allow as %s, matrix %s", tool.Name, got.Name, tool.Disposition))
		case c.unwritten[tool.Name]:
			// Left unwritten: Gemini's own defaults decide, never allowing
			// more than the matrix (above).
		case got.Name != "mcp_"+c.server+"_"+tool.Name:
			problems = append(problems, fmt.Sprintf("%s: Gemini CLI names it %s, want mcp_%s_%s", tool.Name, got.Name, c.server, tool.Name))
		case !toolName.MatchString(tool.Name):
			// Left unwritten (nameable): whatever decides must not allow
			// more than the matrix.
			if got.Decision == "allow" && want != "allow" {
				problems = append(problems, fmt.Sprintf("%s: unwritten, Gemini CLI decides allow, matrix %s", tool.Name, tool.Disposition))
			}
		case got.Decision != want || got.Source != "User: "+filepath.Base(c.file):
			problems = append(problems, fmt.Sprintf("%s: Gemini CLI decides %s by rule %q, matrix %s (%s by the file's rule)",
				tool.Name, got.Decision, got.Source, tool.Disposition, want))
		}
	}
	return problems
}

// codexResult is what codex.mjs reports for one config file.
type codexResult struct {
	Status int    `json:"status"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

// TestCodexLoadsExports: Codex itself (codex mcp get --json) loads every
// exported config, with a command line added, and enables and disables
// the tools as the matrix says: enabled_tools are the allowed and asked
// tools, disabled_tools the denied ones, each in matrix order. Codex
// refuses an approval_mode it does not know, so a wrong value fails; two
// hand-changed files must be caught.
func TestCodexLoadsExports(t *testing.T) {
	node := needHarnesses(t)
	dir := t.TempDir()
	cases := harnessCases(t, Codex, dir)
	search := Tool{Name: "documents.search", Disposition: matrix.Allow}
	check := Tool{Name: "buildsite.command_check", Disposition: matrix.Deny}
	cases = tamper(t, cases, dir, "approval_mode allow", "hub",
		"[mcp_servers.hub]\nenabled_tools = [\"documents.search\"]\ndisabled_tools = []\n[mcp_servers.hub.tools.\"documents.search\"]\napproval_mode = \"allow\"\n", search)
	cases = tamper(t, cases, dir, "deny enabled", "hub",
		"[mcp_servers.hub]\nenabled_tools = [\"documents.search\", \"buildsite.command_check\"]\ndisabled_tools = []\n", search, check)

	type request struct {
		Config string `json:"config"`
		Server string `json:"server"`
	}
	var req []request
	for _, c := range cases {
		req = append(req, request{Config: c.file, Server: c.server})
	}
	var res []codexResult
	runHarness(t, node, "codex.mjs", req, &res)
	if len(res) != len(cases) {
		t.Fatalf("%d results for %d files", len(res), len(cases))
	}
	for i, c := range cases {
		checkHarnessCase(t, c, codexProblems(c, res[i]))
	}
}

func codexProblems(c harnessCase, r codexResult) []string {
	if r.Status != 0 {
		return []string{fmt.Sprintf("codex mcp get exits %d: %s", r.Status, r.Stderr)}
	}
	var got struct {
		Name          string   `json:"name"`
		Enabled       bool     `json:"enabled"`
		EnabledTools  []string `json:"enabled_tools"`
		DisabledTools []string `json:"disabled_tools"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		return []string{fmt.Sprintf("codex mcp get --json: %v\n%s", err, r.Stdout)}
	}
	enabled, disabled := []string{}, []string{}
	for _, tool := range c.tools {
		switch {
		case !toolName.MatchString(tool.Name):
			// Left unwritten (nameable): in neither list, so not enabled.
		case tool.Disposition == matrix.Deny:
			disabled = append(disabled, tool.Name)
		default:
			enabled = append(enabled, tool.Name)
		}
	}
	var problems []string
	if got.Name != c.server || !got.Enabled {
		problems = append(problems, fmt.Sprintf("server %q enabled %v, want %q enabled", got.Name, got.Enabled, c.server))
	}
	if got.EnabledTools == nil {
		got.EnabledTools = []string{}
	}
	if got.DisabledTools == nil {
		got.DisabledTools = []string{}
	}
	if !slices.Equal(got.EnabledTools, enabled) {
		problems = append(problems, fmt.Sprintf("Codex enables %q, matrix allows or asks %q", got.EnabledTools, enabled))
	}
	if !slices.Equal(got.DisabledTools, disabled) {
		problems = append(problems, fmt.Sprintf("Codex disables %q, matrix denies %q", got.DisabledTools, disabled))
	}
	return problems
}
