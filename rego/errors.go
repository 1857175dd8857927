package rego

import (
	"errors"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/hcp-rego/hcp-rego/source"
)

// maxMessage bounds one error message: OPA's messages quote source text,
// and a hostile file may hold a line of megabytes.
const maxMessage = 300

// PositionedErrors turns OPA's parse and compile errors about file into
// source errors, "file:line:col: message", without the quoted source line
// OPA adds. Other errors are returned as they are, cut to a readable length.
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
		pos := source.Pos{}
		if e.Location != nil && e.Location.Row > 0 {
			pos = source.Pos{Line: e.Location.Row, Col: max(1, e.Location.Col)}
		}
		out.Add(file, pos, "%s", Shorten(e.Message))
	}
	return out.Err()
}

// Shorten cuts a message to a readable length.
func Shorten(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	return msg[:maxMessage] + "…"
}
