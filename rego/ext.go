package rego

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/regolimit"
)

// ReadExt reads a runtime's own rules for the embedded evaluator: .rego
// files, or folders of them. Every module must be in package hcp.ext or
// below (the runtime's root: docs/bundles.md, "Beside a runtime bundle"),
// so that it can only add deny and confirm reasons and never redefine the
// decision.
//
// What ReadExt would otherwise pass over is refused, since a runtime's
// deny rules that are silently not loaded make decisions wider: a file
// that is not .rego, a folder with no module, a data file (a runtime
// bundle's data.json), which it does not read. So is what OPA's two ways
// of reading a folder read differently
// (docs/decisions.md#evaluating-one-call-eval): `opa run --bundle DIR`
// skips symbolic links and takes .signatures.json as the bundle's
// signatures, `opa run DIR` follows links and reads .signatures.json as
// data. A link anywhere under a path, the path itself too (its last name:
// `opa run --bundle LINK` walks nothing), and a .signatures.json are
// refused, naming their path, whichever way the sidecar reads the folder.
// A module reached twice (a folder given, then its parent) is read once.
// No name is skipped, whatever it starts with: OPA's loader (`opa eval
// -d`, `opa run`, `opa run --bundle`) reads files and folders whose names
// start with "." or "_", and a rule the sidecar loads must be read here
// too (docs/decisions.md#evaluating-one-call-eval).
//
// The terms of every module are counted against terms, the budget of the
// run, before it is parsed; nil gives the modules a budget of their own
// (NewTermBudget), for a run that reads no other Rego.
func ReadExt(paths []string, terms TermBudget) ([]Option, error) {
	if b, typed := terms.(*regolimit.TermBudget); terms == nil || typed && b == nil {
		terms = NewTermBudget() // a nil *regolimit.TermBudget is not a nil TermBudget
	}
	w := extWalk{seen: map[fileKey][]*extNode{}, terms: terms}
	for _, root := range paths {
		before := len(w.errs)
		has, err := w.root(root)
		switch {
		case err != nil:
			w.errs.Add(root, problem.Pos{}, "%s", problem.Describe(err, "no such file or folder"))
		case !has && len(w.errs) == before:
			w.errs.Add(root, problem.Pos{}, "no .rego module here or below: --ext takes the runtime's Rego rules")
		}
	}
	return w.opts, w.errs.Err()
}

// TermBudget is what the Rego modules that one run reads may still make,
// counted from each module's text before it is parsed: what OPA's parser
// and compiler hold grows with a module's terms, not its bytes, so an
// input's Rego is bounded by its terms. Give the ReadExt calls of one run
// the same budget, so that all their modules count together.
type TermBudget interface {
	// Take counts the terms of src, the Rego text of file, against the
	// budget; a text that takes the run past it is refused, naming the
	// file, line and column where it does, and counts nothing.
	Take(file string, src []byte) error
}

// NewTermBudget returns the budget of one run that every hcp-rego command
// reads Rego within: 1,048,576 terms in all.
func NewTermBudget() TermBudget { return regolimit.NewTermBudget() }

// extWalk gathers the modules of --ext arguments and their problems.
type extWalk struct {
	opts  []Option
	errs  problem.Errors
	seen  map[fileKey][]*extNode // the folders and modules met
	terms TermBudget             // what the run's modules may still make
}

// extNode is a file or folder met, whatever its path. A folder keeps the
// modules it holds itself, whether a problem was reported in it, the
// folders in it and why it could not be read, so that a root met before
// (under another name, or through another root's link) is judged as a
// first meeting would judge it.
type extNode struct {
	info    os.FileInfo
	modules int
	problem bool
	subdirs []*extNode
	err     error
}

// fileKey narrows the files met that one could be: the same file has the
// same size and time (os.SameFile then decides, by device and inode).
type fileKey struct {
	size, mtime int64
	dir         bool
}

// root reads one --ext argument, a .rego file or a folder, and reports
// whether it holds a module, or a problem that was reported. A trailing
// separator does not hide that the path names a link ("LINK/" is read
// through it, "LINK" is not, by `opa run --bundle`).
func (w *extWalk) root(root string) (bool, error) {
	info, err := os.Lstat(lastName(root))
	if err == nil && info.Mode()&fs.ModeSymlink != 0 {
		w.link(root)
		return false, nil
	}
	if err == nil {
		info, err = os.Stat(root)
	}
	switch {
	case err != nil:
		return false, err
	case info.IsDir():
		n, _ := w.dir(root, info)
		return n.reaches(map[*extNode]bool{}), n.err
	case refused(filepath.Base(root)) != "":
		w.errs.Add(root, problem.Pos{}, "%s", refused(filepath.Base(root)))
	case !strings.HasSuffix(root, ".rego"):
		w.errs.Add(root, problem.Pos{}, "not a .rego file: --ext takes the runtime's Rego rules")
	default:
		w.module(root, info)
		return true, nil
	}
	return false, nil
}

// dir reads the modules in dir and below and returns its node; a folder
// met before (given as another path, or under another name) is not read
// again, and fresh says whether it was met now.
func (w *extWalk) dir(dir string, info os.FileInfo) (n *extNode, fresh bool) {
	if n := w.find(info); n != nil {
		return n, false
	}
	n = w.add(info)
	entries, err := os.ReadDir(dir)
	if err != nil {
		n.err, n.problem = err, true
		return n, true
	}
	for _, e := range entries {
		w.entry(filepath.Join(dir, e.Name()), n)
	}
	return n, true
}

// entry reads one file or folder found in the folder parent.
func (w *extWalk) entry(path string, parent *extNode) {
	before := len(w.errs)
	defer func() { parent.problem = parent.problem || len(w.errs) > before }()
	info, err := os.Lstat(path)
	switch {
	case err != nil:
		w.errs.Add(path, problem.Pos{}, "%s", problem.Describe(err, "no such file or folder"))
	case info.Mode()&fs.ModeSymlink != 0:
		w.link(path)
	case info.IsDir():
		sub, fresh := w.dir(path, info)
		if fresh && sub.err != nil {
			w.errs.Add(path, problem.Pos{}, "%s", problem.Describe(sub.err, "no such folder"))
		}
		parent.subdirs = append(parent.subdirs, sub)
	case refused(info.Name()) != "":
		w.errs.Add(path, problem.Pos{}, "%s", refused(info.Name()))
	case strings.HasSuffix(path, ".rego"):
		parent.modules++
		w.module(path, info)
	}
}

// lastName is path without its trailing separators, so that Lstat judges
// the last name itself, not what a link there leads to; "/" stays "/".
func lastName(path string) string {
	if trimmed := strings.TrimRight(path, string(filepath.Separator)); trimmed != "" {
		return trimmed
	}
	return path
}

// link refuses the symbolic link at path: `opa run --bundle` skips it and
// `opa run` follows it, so no local check can say what the sidecar loads.
func (w *extWalk) link(path string) {
	if _, err := os.Stat(path); err != nil {
		w.errs.Add(path, problem.Pos{}, "a link to nothing")
		return
	}
	w.errs.Add(path, problem.Pos{}, "a symbolic link, which opa run --bundle skips and opa run follows: give --ext the files themselves")
}

// module reads one module, once however many paths lead to it.
func (w *extWalk) module(path string, info os.FileInfo) {
	if w.find(info) != nil {
		return
	}
	w.add(info)
	opt, err := readExtModule(path, w.terms)
	w.errs.Merge(path, err)
	if err == nil {
		w.opts = append(w.opts, opt)
	}
}

// reaches reports whether a module, or a problem reported, is in n or
// below it.
func (n *extNode) reaches(visited map[*extNode]bool) bool {
	if visited[n] {
		return false
	}
	visited[n] = true
	if n.modules > 0 || n.problem {
		return true
	}
	for _, sub := range n.subdirs {
		if sub.reaches(visited) {
			return true
		}
	}
	return false
}

// find returns the node of the file or folder info met before, whatever
// its path, or nil.
func (w *extWalk) find(info os.FileInfo) *extNode {
	for _, n := range w.seen[keyOf(info)] {
		if os.SameFile(n.info, info) {
			return n
		}
	}
	return nil
}

// add records info as met and returns its node.
func (w *extWalk) add(info os.FileInfo) *extNode {
	n := &extNode{info: info}
	k := keyOf(info)
	w.seen[k] = append(w.seen[k], n)
	return n
}

func keyOf(info os.FileInfo) fileKey {
	return fileKey{size: info.Size(), mtime: info.ModTime().UnixNano(), dir: info.IsDir()}
}

// refused says why a file named name is not read, or "". A data file is
// one that OPA may read as data, or as a bundle of rules: a runtime
// bundle's data.json, any JSON or YAML file that `opa run DIR` and `opa
// eval -d DIR` load as data at its folder's path (hcp/ext/deny.json would
// deny in the sidecar), and a bundle archive, which they load whole.
// hcp-rego reads none of them, so a local check would be wider than the
// sidecar. A signed runtime bundle's .signatures.json is read as data by
// `opa run DIR` and as signatures by `opa run --bundle DIR`.
func refused(name string) string {
	if name == ".signatures.json" {
		return "a bundle's signatures, which opa run --bundle verifies and opa run reads as data: --ext takes the runtime's Rego rules alone"
	}
	for _, ext := range []string{".json", ".yaml", ".yml", ".tar.gz"} {
		if strings.HasSuffix(name, ext) {
			return "a data file is not read: --ext takes the runtime's Rego rules (package hcp.ext)"
		}
	}
	return ""
}

// readExtModule reads and parses one module, once its terms are counted
// against terms.
func readExtModule(path string, terms TermBudget) (Option, error) {
	src, err := document.ReadFile(path)
	if err != nil {
		return Option{}, err
	}
	if err := terms.Take(path, src); err != nil {
		return Option{}, err
	}
	mod, err := ast.ParseModuleWithOpts(path, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return Option{}, problem.OPAErrors(path, err)
	}
	if err := regolimit.CheckBodies(path, mod); err != nil {
		return Option{}, err
	}
	if !mod.Package.Path.HasPrefix(ast.MustParseRef("data.hcp.ext")) {
		loc := mod.Package.Location
		return Option{}, &problem.Error{File: path, Pos: problem.Pos{Line: loc.Row, Col: loc.Col},
			Msg: fmt.Sprintf("package %s is outside hcp.ext, the runtime's root", strings.TrimPrefix(mod.Package.Path.String(), "data."))}
	}
	return Option{name: path, parsed: mod}, nil // parsed once
}
