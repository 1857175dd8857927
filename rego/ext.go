package rego

import (
	"fmt"
	"io/fs"
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
func ReadExt(paths []string) ([]Option, error) {
	var opts []Option
	var errs source.Errors
	for _, root := range paths {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".rego") {
				return err
			}
			opt, err := readExtModule(path)
			errs.Merge(path, err)
			if opt != nil {
				opts = append(opts, opt)
			}
			return nil
		})
		if err != nil {
			errs.Add(root, source.Pos{}, "%s", describeWalkError(err))
		}
	}
	return opts, errs.Err()
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

func describeWalkError(err error) string {
	if os.IsNotExist(err) {
		return "no such file or folder"
	}
	return err.Error()
}
