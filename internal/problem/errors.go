// Package problem is what hcp-rego says of a bad input: a problem at a
// file, line and column in plain words, every problem of a run sorted and
// rendered one a line, printable whatever the file held; and OPA's own
// errors read into the same form.
package problem

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// Error is one problem in one input file, at one position when there is one.
type Error struct {
	// In names what File is a member of, such as the bundle a module
	// came from ("b.tar.gz: bundle refused"), when File alone does not
	// say where it is; empty for a file of its own. It is written first,
	// as it is: whoever sets it made the names it holds printable and fit
	// to start a line (printable.LineStart).
	In   string
	File string
	Pos  Pos
	Msg  string
	// Hint is what the message suggests, if anything (the keys that are
	// there, closest first): it goes on a line of its own below the
	// message, so that the message line stays the same text whatever the
	// hint says and a script can match it (docs/commands.md, "Exit codes").
	Hint string
}

// Error renders the problem as "file:line:col: message", or "file: message"
// when the problem has no position (a missing file, say), or the message
// alone when it has no file (an error kept whole by Merge); "in: " comes
// first when the file is a member of something; a hint follows on its own
// line, indented as "  hint: ...".
//
// The file name is quoted where it would start a line or is not
// printable (printable.LineStart, printable.Quote) and the message
// escaped: a file or folder name, or a value a message quotes, may hold a
// line break or an escape, or start with "::", and no input may start a
// line of output (a GitHub workflow command, a fake result line) or drive
// a terminal (docs/reliability.md, "Names cannot write output of their
// own").
func (e *Error) Error() string {
	if e.Hint == "" {
		return e.line()
	}
	// Indented, the hint line can start no workflow command or result
	// line, whatever the names it lists hold.
	return e.line() + "\n  hint: " + printable.Escape(e.Hint)
}

// line is the problem's line, without its hint.
func (e *Error) line() string {
	msg := printable.Escape(e.Msg)
	file := printable.LineStart(e.File)
	if e.In != "" {
		file = e.In + ": " + printable.Quote(e.File)
	}
	switch {
	case e.File == "" && e.In == "":
		return msg // an error that names its file itself, or none
	case e.Pos.Line == 0:
		return file + ": " + msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", file, e.Pos.Line, e.Pos.Col, msg)
}

// place is the file, after what holds it when something does, as the
// problem's line names it: problems sort by it.
func (e *Error) place() string {
	if e.In == "" {
		return e.File
	}
	return e.In + ": " + e.File
}

// Errors is every problem found in one run. It renders sorted by file and
// position, one per line, so that output is stable and reads top to bottom.
type Errors []*Error

// Error renders every problem, one per line, sorted. It leaves es as it
// is: an error may be printed from two goroutines at once.
func (es Errors) Error() string {
	sorted := slices.Clone(es)
	sorted.Sort()
	lines := make([]string, len(sorted))
	for i, e := range sorted {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Sort orders the problems by file (after what holds it), line, column,
// message and hint.
func (es Errors) Sort() {
	slices.SortStableFunc(es, compareErrors)
}

func compareErrors(a, b *Error) int {
	return cmp.Or(
		cmp.Compare(a.place(), b.place()),
		cmp.Compare(a.Pos.Line, b.Pos.Line),
		cmp.Compare(a.Pos.Col, b.Pos.Col),
		cmp.Compare(a.Msg, b.Msg),
		cmp.Compare(a.Hint, b.Hint),
	)
}

// Err returns es as an error, sorted, each problem once, or nil when it
// holds no problem, so that a caller can write `return errs.Err()` without
// the typed-nil trap. The error is a copy: es is left as it is, and the
// caller may go on adding to it.
func (es Errors) Err() error {
	if len(es) == 0 {
		return nil
	}
	out := slices.Clone(es)
	out.Sort()
	// A file that two steps read (discovery, then a case file naming it)
	// is reported once.
	return slices.CompactFunc(out, func(a, b *Error) bool { return *a == *b })
}

// Add appends one problem and returns it, for a caller that sets its Hint.
func (es *Errors) Add(file string, pos Pos, format string, args ...any) *Error {
	e := &Error{File: file, Pos: pos, Msg: fmt.Sprintf(format, args...)}
	*es = append(*es, e)
	return e
}

// Merge appends the problems carried by err: an Errors, an *Error, or any
// other error, which is kept under file with no position.
func (es *Errors) Merge(file string, err error) {
	switch e := err.(type) {
	case nil:
	case Errors:
		*es = append(*es, e...)
	case *Error:
		*es = append(*es, e)
	default:
		*es = append(*es, &Error{File: file, Msg: err.Error()})
	}
}

// Clip shortens a long token or value for a message to its first and last
// 32 bytes around how many were left out: the position names the value,
// and a message must not repeat a megabyte of it.
func Clip(s string) string {
	const keep = 32
	if len(s) <= 3*keep {
		return s
	}
	head, tail := strings.ToValidUTF8(s[:keep], ""), strings.ToValidUTF8(s[len(s)-keep:], "")
	return fmt.Sprintf("%s...(%d bytes)...%s", head, len(s)-len(head)-len(tail), tail)
}

// Pathless drops the file name from a file system error, for a message
// that names the file its own way (a temporary file's random name, or
// /dev/stdout for standard output, would only confuse).
func Pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
