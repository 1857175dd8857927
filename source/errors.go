package source

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is one problem in one input file, at one position when there is one.
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

// Error renders the problem as "file:line:col: message", or "file: message"
// when the problem has no position (a missing file, say), or the message
// alone when it has no file (an error kept whole by Merge).
//
// The file name is Printable and the message Escaped: a file or folder
// name, or a value a message quotes, may hold a line break or an escape,
// and no input may start a line of output (a GitHub workflow command, a
// fake result line) or drive a terminal (SPEC §5).
func (e *Error) Error() string {
	msg := Escaped(e.Msg)
	switch {
	case e.File == "":
		return msg // an error that names its file itself, or none
	case e.Pos.Line == 0:
		return Printable(e.File) + ": " + msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", Printable(e.File), e.Pos.Line, e.Pos.Col, msg)
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

// Sort orders the problems by file, line, column and message.
func (es Errors) Sort() {
	slices.SortStableFunc(es, compareErrors)
}

func compareErrors(a, b *Error) int {
	return cmp.Or(
		cmp.Compare(a.File, b.File),
		cmp.Compare(a.Pos.Line, b.Pos.Line),
		cmp.Compare(a.Pos.Col, b.Pos.Col),
		cmp.Compare(a.Msg, b.Msg),
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

// Add appends one problem.
func (es *Errors) Add(file string, pos Pos, format string, args ...any) {
	*es = append(*es, &Error{File: file, Pos: pos, Msg: fmt.Sprintf(format, args...)})
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

// Printable returns s, or s quoted with Go escapes when it holds a rune
// that is not printable, so that a key or a name from a file cannot send
// control sequences to a terminal or break a line.
func Printable(s string) string {
	if !isPrintable(s) {
		return strconv.Quote(s) // a byte such as 0x9b, a terminal's CSI, too
	}
	return s
}

// Escaped returns s with each rune that is not printable written as its
// Go escape where it stands (a line break as \n, an escape as \x1b) and
// each byte that is not UTF-8 as \xNN: for a line of ours that holds a
// name or a value from a file, which must neither break the line nor
// reach a terminal raw. Printable quotes a name whole; Escaped keeps the
// line's own words as they are.
func Escaped(s string) string {
	if isPrintable(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && width == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += width
	}
	return b.String()
}

// isPrintable reports whether s is UTF-8 with every rune printable.
func isPrintable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// OneLine returns another program's text (a registry's or a sidecar's
// error) for a message of ours: its white space runs as one space, cut to
// at most max bytes with "..." after, and Printable.
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "") + "..."
	}
	return Printable(s)
}
