package testrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/discover"
	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/schema"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// CaseFile is one checked decision case file (docs/tests.md).
type CaseFile struct {
	Path string
	// Packs are the pack folders the file names, resolved against its
	// folder and cleaned; nil means every pack the run found.
	Packs []string
	// Grants are the grant files the file names, in its order; nil means
	// every grant file the run found, and an empty list means none.
	Grants []string
	// Bundles are the bundles as built that the file names instead of
	// packs and grants (docs/fleet.md): a policy bundle and shards of its
	// build, or a sharded build's folder, resolved against its folder.
	// Its cases are decided with them as a sidecar loading them decides.
	Bundles []string
	// Ext is the runtime's own rules the file names (its ext paths),
	// read as `eval --ext` reads them: every case of the file is decided
	// with them loaded beside the bundle. ExtPaths are those paths.
	Ext      []hcprego.Option
	ExtPaths []string
	Cases    []*Case

	// bundlesPos is where the file names its bundles.
	bundlesPos problem.Pos
	// packsKnown is false when the file names packs that could not all
	// be read (a path that is no pack, a list that is no list of paths).
	packsKnown bool
}

// Case is one decision case: an input and the subset of the decision
// document it must get.
type Case struct {
	Name  string
	File  string
	Pos   problem.Pos // where the case starts
	Input any
	Want  map[string]any
	Ext   *Ext // nil when the case sets no runtime layer

	// input is the input's tree, for positioned schema messages when
	// --explain walks a failing case.
	input *document.Node
}

// Ext is a case's runtime layer (docs/decisions.md item 6): the reasons
// that data.hcp.ext.deny and data.hcp.ext.confirm hold.
type Ext struct {
	Deny    []string
	Confirm []string
}

// LoadCaseFile reads a case file (YAML, or JSON when its name ends in
// .json), validates it against the cases schema, and checks that the packs
// and grant files it names exist and that its case names are unique. It
// returns every problem, positioned. Its values, and what a YAML file's
// aliases expand to, are taken from budget, the budget of every case file
// of the run (see document.ParseJSON and document.ParseYAML), and the terms of
// its runtime rules from terms, the budget of every Rego module of the
// run (see hcprego.ReadExt; nil for a budget of their own).
func LoadCaseFile(path string, budget *document.Budget, terms hcprego.TermBudget) (*CaseFile, error) {
	path = filepath.Clean(path)
	root, err := readCaseFile(path, budget)
	if err != nil {
		return nil, err
	}
	cf := &CaseFile{Path: path}
	var errs problem.Errors
	errs.Merge(path, schema.Get("cases").Validate(path, root))
	cf.packsKnown = root.Field("packs") == nil
	if n := root.Field("packs"); isStrings(n) {
		var missing int
		cf.Packs, missing = resolvePaths(path, n, "packs", packDirProblem, &errs)
		cf.packsKnown = missing == 0
	}
	if n := root.Field("grants"); isStrings(n) {
		cf.Grants, _ = resolvePaths(path, n, "grants", fileProblem, &errs)
	}
	if n := root.Field("bundles"); isStrings(n) {
		cf.Bundles, _ = resolvePaths(path, n, "bundles", existsProblem, &errs)
		cf.bundlesPos = n.KeyPos
		checkNoSources(path, root, &errs)
	}
	if n := root.Field("ext"); isStrings(n) {
		var missing int
		cf.ExtPaths, missing = resolvePaths(path, n, "ext", existsProblem, &errs)
		if missing == 0 {
			var err error
			cf.Ext, err = hcprego.ReadExt(cf.ExtPaths, terms)
			errs.Merge(path, err)
		}
	}
	if len(errs) == 0 {
		cf.Cases = readCases(path, root.Field("cases"), &errs)
		cf.checkExt(&errs)
	}
	return cf, errs.Err()
}

// checkExt refuses a case's own runtime reasons in a file that loads the
// runtime's rules: both would define data.hcp.ext.deny.
func (cf *CaseFile) checkExt(errs *problem.Errors) {
	if len(cf.ExtPaths) == 0 {
		return
	}
	for _, c := range cf.Cases {
		if c.Ext != nil {
			errs.Add(cf.Path, c.Pos, "case %q sets ext reasons, but the file loads the runtime's rules (ext paths): give one or the other", c.Name)
		}
	}
}

// checkNoSources refuses packs and grants in a case file that names
// bundles: its cases are decided with the bundles as built, and a pack or
// grant file beside them would be read by no case, or make a reader think
// the bundles are built from them.
func checkNoSources(path string, root *document.Node, errs *problem.Errors) {
	for _, field := range []string{"packs", "grants"} {
		if n := root.Field(field); n != nil {
			errs.Add(path, n.KeyPos, "%s: a case file that names bundles decides with them as built, not with packs and grant files: leave out packs and grants, or bundles", field)
		}
	}
}

// existsProblem says why path cannot be read, or "".
func existsProblem(path string) string {
	if _, err := os.Stat(path); err != nil {
		return problem.Describe(err, "no such file or folder")
	}
	return ""
}

// isStrings reports whether n is an array of strings, so that the paths
// of a file whose other parts break the schema are still checked.
func isStrings(n *document.Node) bool {
	if n == nil || n.Kind != document.Array {
		return false
	}
	for _, item := range n.Items {
		if item.Kind != document.String {
			return false
		}
	}
	return true
}

func readCaseFile(path string, budget *document.Budget) (*document.Node, error) {
	if strings.HasSuffix(path, ".json") {
		return document.ReadJSON(path, budget)
	}
	return document.ReadYAML(path, budget)
}

// resolvePaths resolves the paths a case file lists against its folder
// and checks each with exists, which says what is wrong or "". It returns
// the paths, each once, and how many failed that check.
func resolvePaths(file string, list *document.Node, field string, exists func(string) string, errs *problem.Errors) (out []string, missing int) {
	out = []string{}
	seen := map[string]*document.Node{}
	for i, item := range list.Members() {
		p := item.Text
		if p == "" {
			continue // the schema reports it
		}
		if !filepath.IsAbs(p) {
			// Joined as the system reads it: "../x" beside a case file
			// reached through a link is beside the link's target.
			p = filepath.Dir(file) + string(filepath.Separator) + filepath.FromSlash(p)
		}
		p = discover.Tidy(p)
		if first, dup := seen[p]; dup {
			errs.Add(file, item.Pos, "%s[%d]: %q names %s again (first at %d:%d)", field, i, item.Text, p, first.Pos.Line, first.Pos.Col)
			continue
		}
		seen[p] = item
		if problem := exists(p); problem != "" {
			errs.Add(file, item.Pos, "%s[%d]: %q: %s", field, i, item.Text, problem)
			missing++
			continue
		}
		out = append(out, p)
	}
	return out, missing
}

// packDirProblem says what keeps dir from being a pack folder, or "".
func packDirProblem(dir string) string {
	if info, err := os.Stat(filepath.Join(dir, "policy.json")); err != nil || info.IsDir() {
		return fmt.Sprintf("no pack at %s (no policy.json there)", filepath.ToSlash(dir))
	}
	return ""
}

// fileProblem says what keeps path from being a readable file, or "".
func fileProblem(path string) string {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("no such file %s", filepath.ToSlash(path))
	case err != nil:
		return fmt.Sprintf("%s: %s", filepath.ToSlash(path), problem.Describe(err, ""))
	case info.IsDir():
		return fmt.Sprintf("%s is a folder, want a grant file", filepath.ToSlash(path))
	}
	return ""
}

// readCases turns the cases array into Cases; names must be unique in a
// file, so that a failure names one case.
func readCases(file string, list *document.Node, errs *problem.Errors) []*Case {
	var cases []*Case
	seen := map[string]*document.Node{}
	for i, n := range list.Members() {
		name := n.Field("name")
		if first, dup := seen[name.Text]; dup {
			errs.Add(file, name.Pos, "cases[%d]: duplicate case name %q (first at %d:%d)", i, name.Text, first.Pos.Line, first.Pos.Col)
			continue
		}
		seen[name.Text] = name
		want, _ := n.Field("want").Value().(map[string]any)
		cases = append(cases, &Case{
			Name:  name.Text,
			File:  file,
			Pos:   n.Pos,
			Input: n.Field("input").Value(),
			Want:  want,
			Ext:   readExt(n.Field("ext")),
			input: n.Field("input"),
		})
	}
	return cases
}

func readExt(n *document.Node) *Ext {
	if n == nil {
		return nil
	}
	return &Ext{Deny: n.Field("deny").Strings(), Confirm: n.Field("confirm").Strings()}
}
