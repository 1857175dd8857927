package rego

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/hcp-rego/hcp-rego/source"
)

// ReadExt reads a runtime's own rules for the embedded evaluator: .rego
// files, or folders of them. Every module must be in package hcp.ext or
// below (the runtime's root, SPEC §4.2), so that it can only add deny and
// confirm reasons and never redefine the decision.
//
// What ReadExt would otherwise pass over is refused, since a runtime's
// deny rules that are silently not loaded make decisions wider: a file
// that is not .rego, a folder with no module, a data file (a runtime
// bundle's data.json), which it does not read, and a link to nothing.
// Links are followed, and a module reached twice (through a link, as in a
// Kubernetes ConfigMap mount) is read once. Files and folders whose names
// start with "." or "_" are skipped, as discovery skips them.
func ReadExt(paths []string) ([]Option, error) {
	var w extWalk
	for _, root := range paths {
		before := w.found + len(w.errs)
		if err := w.root(root); err != nil {
			w.errs.Add(root, source.Pos{}, "%s", source.Describe(err, "no such file or folder"))
		} else if w.found+len(w.errs) == before {
			w.errs.Add(root, source.Pos{}, "no .rego module here or below: --ext takes the runtime's Rego rules")
		}
	}
	return w.opts, w.errs.Err()
}

// extWalk gathers the modules of --ext arguments and their problems.
type extWalk struct {
	opts  []Option
	errs  source.Errors
	seen  []*extSeen // the folders and modules met, by identity
	found int        // modules met, read now or before
}

// extSeen is a file or folder met, and for a folder the modules met below
// it (so that meeting it again, under another name, counts them again).
type extSeen struct {
	info    os.FileInfo
	modules int
}

// root reads one --ext argument: a .rego file, or a folder.
func (w *extWalk) root(root string) error {
	info, err := os.Stat(root)
	switch {
	case err != nil:
		return err
	case info.IsDir():
		return w.dir(root, info)
	case isDataFile(filepath.Base(root)):
		w.errs.Add(root, source.Pos{}, "a data file is not read: --ext takes the runtime's Rego rules (package hcp.ext)")
	case !strings.HasSuffix(root, ".rego"):
		w.errs.Add(root, source.Pos{}, "not a .rego file: --ext takes the runtime's Rego rules")
	default:
		w.module(root, info)
	}
	return nil
}

// dir reads the modules in dir and below, following links; a folder met
// before (a link back up, the same folder given twice) is not read again.
func (w *extWalk) dir(dir string, info os.FileInfo) error {
	if s := w.met(info); s != nil {
		w.found += s.modules
		return nil
	}
	s := &extSeen{info: info}
	w.seen = append(w.seen, s)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	before := w.found
	for _, e := range entries {
		if name := e.Name(); !strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_") {
			w.entry(filepath.Join(dir, name))
		}
	}
	s.modules = w.found - before
	return nil
}

// entry reads one file or folder found in a folder.
func (w *extWalk) entry(path string) {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		w.errs.Add(path, source.Pos{}, "%s", source.Describe(err, "a link to nothing"))
	case info.IsDir():
		if err := w.dir(path, info); err != nil {
			w.errs.Add(path, source.Pos{}, "%s", source.Describe(err, "no such folder"))
		}
	case isDataFile(info.Name()):
		w.errs.Add(path, source.Pos{}, "a data file is not read: --ext takes the runtime's Rego rules (package hcp.ext)")
	case strings.HasSuffix(path, ".rego"):
		w.module(path, info)
	}
}

// module reads one module, once however many links lead to it.
func (w *extWalk) module(path string, info os.FileInfo) {
	w.found++
	if w.met(info) != nil {
		return
	}
	w.seen = append(w.seen, &extSeen{info: info})
	opt, err := readExtModule(path)
	w.errs.Merge(path, err)
	if opt != nil {
		w.opts = append(w.opts, opt)
	}
}

// met returns the file or folder met before that info is (os.SameFile:
// the same device and inode, whatever the path), or nil.
func (w *extWalk) met(info os.FileInfo) *extSeen {
	for _, s := range w.seen {
		if os.SameFile(s.info, info) {
			return s
		}
	}
	return nil
}

// isDataFile reports whether name is one that OPA reads as a bundle's data.
func isDataFile(name string) bool {
	return name == "data.json" || name == "data.yaml" || name == "data.yml"
}

func readExtModule(path string) (Option, error) {
	src, err := source.ReadFile(path)
	if err != nil {
		return nil, err
	}
	mod, err := ast.ParseModuleWithOpts(path, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, PositionedErrors(path, err)
	}
	if !mod.Package.Path.HasPrefix(ast.MustParseRef("data.hcp.ext")) {
		loc := mod.Package.Location
		return nil, &source.Error{File: path, Pos: source.Pos{Line: loc.Row, Col: loc.Col},
			Msg: fmt.Sprintf("package %s is outside hcp.ext, the runtime's root", strings.TrimPrefix(mod.Package.Path.String(), "data."))}
	}
	return WithModule(path, string(src)), nil
}
