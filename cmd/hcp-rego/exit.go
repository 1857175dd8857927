package main

import (
	"errors"
	"fmt"
)

// Exit codes, mapped in this one place (docs/commands.md, "Exit codes").
const (
	exitOK       = 0 // success
	exitFindings = 1 // lint findings, failing tests, a denied decision under --fail-on-deny, a rollout not done (status)
	exitBadInput = 2 // usage, unreadable or invalid input
)

// exitError carries an exit code out of a command's RunE.
type exitError struct {
	code int
	err  error // already printed when nil
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// findings ends a command with exit 1 once its findings are printed.
func findings() error { return &exitError{code: exitFindings} }

// badInput ends a command with exit 2 and err on stderr.
func badInput(err error) error { return &exitError{code: exitBadInput, err: err} }

// exitCode maps the error a command returned to the process exit code and
// the message to print, if any. Errors that are not exitErrors (cobra's
// flag and argument errors) are usage errors.
func exitCode(err error) (int, string) {
	if err == nil {
		return exitOK, ""
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err == nil {
			return ee.code, ""
		}
		return ee.code, ee.err.Error()
	}
	return exitBadInput, err.Error()
}
