package rego

import (
	"errors"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/source"
)

// maxMessage bounds one error message: OPA's messages quote source text,
// and a hostile file may hold a line of megabytes.
const maxMessage = 300

// PositionedErrors turns OPA's parse and compile errors into source
// errors, "file:line:col: message", without the quoted source line OPA
// adds. An error names the module OPA located it in, or file when OPA
// names none. Other errors are kept under file, cut to a readable length.
func PositionedErrors(file string, err error) error {
	var errs ast.Errors
	if !errors.As(err, &errs) {
		if err == nil {
			return nil
		}
		return &source.Error{File: file, Msg: Shorten(err.Error())}
	}
	var out source.Errors
	for _, e := range errs {
		where, pos := file, source.Pos{}
		if e.Location != nil && e.Location.File != "" {
			where = e.Location.File
		}
		if e.Location != nil && e.Location.Row > 0 {
			pos = source.Pos{Line: e.Location.Row, Col: max(1, e.Location.Col)}
		}
		out.Add(where, pos, "%s", Shorten(e.Message))
	}
	return out.Err()
}

// Shorten cuts a message to a readable length, on a character boundary.
func Shorten(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	return strings.ToValidUTF8(msg[:maxMessage], "") + "…"
}

// InBundle names, in an error of New, the modules that came from bundle b
// as modules inside it: "b.tar.gz: hcp/authz/x.rego:3:7: message", where
// name is the bundle's path (or what stands for it, as "the compiled
// bundle"), and a module path that holds a control character is quoted.
// They stay sorted by module, line and column.
// A runtime's own modules keep their file names.
//
// When runtime modules were loaded (ext) and an error is inside the
// bundle, a line says that those may be at fault: a runtime's rule that
// type-checks alone (deny as a function, say) breaks the library's use of
// data.hcp.ext, where OPA reports it.
func InBundle(err error, b *bundle.Bundle, name string, ext bool) error {
	inside := map[string]bool{}
	for _, m := range b.Modules {
		inside[m.Path] = true
	}
	var errs, out source.Errors
	errs.Merge("", err)
	anyInside := false
	for _, e := range errs {
		if !inside[e.File] {
			out = append(out, e)
			continue
		}
		anyInside = true
		out = append(out, ModuleError(name, e))
	}
	if ext && anyInside {
		out.Add("--ext", source.Pos{}, "the runtime's modules, loaded beside %s, may be at fault: deny and confirm in package hcp.ext must be sets of strings", name)
	}
	return out.Err()
}

// ModuleError is e, located in a module of the bundle named name, as
// "name: module:line:col: message": the module path without its leading
// "/", quoted when it holds a control character, and the position kept, so
// that errors sort by module, line and column.
func ModuleError(name string, e *source.Error) *source.Error {
	module := source.Printable(strings.TrimPrefix(e.File, "/"))
	return &source.Error{File: name + ": " + module, Pos: e.Pos, Msg: e.Msg}
}
