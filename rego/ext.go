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
	w := extWalk{seen: map[fileKey][]os.FileInfo{}}
	for _, root := range paths {
		if info, err := os.Stat(root); err == nil && info.IsDir() && w.met(info) {
			continue // walked already, under this or another name
		}
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
	seen  map[fileKey][]os.FileInfo // the folders and modules met
	found int                       // modules met, read now or before
}

// fileKey narrows the files met that one could be: the same file has the
// same size and time (os.SameFile then decides, by device and inode).
type fileKey struct {
	size, mtime int64
	dir         bool
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
// before (a link back up) is not read again.
func (w *extWalk) dir(dir string, info os.FileInfo) error {
	if w.mark(info) {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if name := e.Name(); !strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_") {
			w.entry(filepath.Join(dir, name))
		}
	}
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
	if w.mark(info) {
		return
	}
	opt, err := readExtModule(path)
	w.errs.Merge(path, err)
	if err == nil {
		w.opts = append(w.opts, opt)
	}
}

// met reports whether the file or folder info was met before, whatever
// its path.
func (w *extWalk) met(info os.FileInfo) bool {
	for _, s := range w.seen[keyOf(info)] {
		if os.SameFile(s, info) {
			return true
		}
	}
	return false
}

// mark reports whether info was met before, and marks it met.
func (w *extWalk) mark(info os.FileInfo) bool {
	if w.met(info) {
		return true
	}
	k := keyOf(info)
	w.seen[k] = append(w.seen[k], info)
	return false
}

func keyOf(info os.FileInfo) fileKey {
	return fileKey{size: info.Size(), mtime: info.ModTime().UnixNano(), dir: info.IsDir()}
}

// isDataFile reports whether name is one that OPA reads as a bundle's data.
func isDataFile(name string) bool {
	return name == "data.json" || name == "data.yaml" || name == "data.yml"
}

func readExtModule(path string) (Option, error) {
	src, err := source.ReadFile(path)
	if err != nil {
		return Option{}, err
	}
	mod, err := ast.ParseModuleWithOpts(path, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return Option{}, PositionedErrors(path, err)
	}
	if !mod.Package.Path.HasPrefix(ast.MustParseRef("data.hcp.ext")) {
		loc := mod.Package.Location
		return Option{}, &source.Error{File: path, Pos: source.Pos{Line: loc.Row, Col: loc.Col},
			Msg: fmt.Sprintf("package %s is outside hcp.ext, the runtime's root", strings.TrimPrefix(mod.Package.Path.String(), "data."))}
	}
	return WithModule(path, string(src)), nil
}
