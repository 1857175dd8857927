package problem

import (
	"errors"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// maxMessage bounds one error message: OPA's messages quote source text,
// and a hostile file may hold a line of megabytes.
const maxMessage = 300

// OPAErrors turns OPA's parse and compile errors into source errors,
// "file:line:col: message", without the quoted source line OPA adds. An
// error names the module OPA located it in, or file when OPA names none.
// Other errors are kept under file, cut to a readable length.
func OPAErrors(file string, err error) error {
	var errs ast.Errors
	var one *ast.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &errs):
	case errors.As(err, &one):
		errs = ast.Errors{one} // a parse error of the whole file, such as an empty module
	default:
		return &Error{File: file, Msg: Shorten(err.Error())}
	}
	var out Errors
	for _, e := range errs {
		where, pos := file, Pos{}
		if e.Location != nil && e.Location.File != "" {
			where = e.Location.File
		}
		switch {
		case e.Location != nil && e.Location.Row > 0:
			pos = Pos{Line: e.Location.Row, Col: max(1, e.Location.Col)}
		case e.Location != nil:
			pos = Pos{Line: 1, Col: 1} // the file's, with no line of its own
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

// InModule is e, located in a module of the bundle named name, as
// "name: module:line:col: message": the module path without its leading
// "/", quoted when it holds a control character, and the position kept, so
// that errors sort by module, line and column. name is written as it is,
// first on its line: the caller makes a path it holds fit for that
// (printable.LineStart).
func InModule(name string, e *Error) *Error {
	return &Error{In: name, File: strings.TrimPrefix(e.File, "/"), Pos: e.Pos, Msg: e.Msg, Hint: e.Hint}
}
