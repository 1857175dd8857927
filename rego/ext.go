package rego

import (
	"fmt"
	"io/fs"
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
// that is not .rego, a folder with no module, and a data file (a runtime
// bundle's data.json), which it does not read.
func ReadExt(paths []string) ([]Option, error) {
	var opts []Option
	var errs source.Errors
	for _, root := range paths {
		before := len(errs)
		found, err := readExtRoot(root, &errs)
		opts = append(opts, found...)
		if err != nil {
			errs.Add(root, source.Pos{}, "%s", source.Describe(err, "no such file or folder"))
		} else if len(found) == 0 && len(errs) == before {
			errs.Add(root, source.Pos{}, "no .rego module here or below: --ext takes the runtime's Rego rules")
		}
	}
	return opts, errs.Err()
}

// readExtRoot reads the modules of one --ext argument, adding the
// problems of its files to errs.
func readExtRoot(root string, errs *source.Errors) ([]Option, error) {
	var opts []Option
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			return nil
		case isDataFile(d.Name()):
			errs.Add(path, source.Pos{}, "a data file is not read: --ext takes the runtime's Rego rules (package hcp.ext)")
			return nil
		case !strings.HasSuffix(path, ".rego"):
			if path == root {
				errs.Add(path, source.Pos{}, "not a .rego file: --ext takes the runtime's Rego rules")
			}
			return nil
		}
		opt, err := readExtModule(path)
		errs.Merge(path, err)
		if opt != nil {
			opts = append(opts, opt)
		}
		return nil
	})
	return opts, err
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
