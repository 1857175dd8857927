// Package printable makes text from inputs and other programs safe to
// print for a person or a CI system: whatever a file or folder name, a key
// or a value holds, no line break, escape or other control character
// reaches a terminal raw, and no input starts a line of output (a GitHub
// workflow command, a fake result line).
package printable

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Quote returns s, or s quoted with Go escapes when it holds a rune
// that is not printable, so that a key or a name from a file cannot send
// control sequences to a terminal or break a line.
func Quote(s string) string {
	if !isPrintable(s) {
		return strconv.Quote(s) // a byte such as 0x9b, a terminal's CSI, too
	}
	return s
}

// LineStart returns s for the start of a line of output, where a name,
// a key or a path from an input stands first ("file:line:col: message",
// a table's first column): s as it is when it is an ordinary name, else
// quoted as Quote quotes it. Besides what Quote quotes, LineStart quotes
// s when it starts with ':' (a GitHub workflow command starts with "::",
// and a name ":" before ":1:2" would start one), when it holds a space
// (each result line of ours has one among its first words: "3 passed, 0
// failed", "ok: 2 packs", "FAIL x.cases.yaml:4: name"), and when, less
// a ':' at its end, it is one of the words a result line of ours starts
// with ("ok" before ": no such pack folder"). So no input starts a
// workflow command or a line that reads as one of ours
// (docs/reliability.md, "Names cannot write output of their own"),
// whatever follows it.
func LineStart(s string) string {
	if strings.HasPrefix(s, ":") || strings.Contains(s, " ") || isResultWord(strings.TrimSuffix(s, ":")) {
		return strconv.Quote(s)
	}
	return Quote(s)
}

// resultWords are the words that a result line of hcp-rego's starts
// with, before a space or a ':': lint's "ok: ...", test's "PASS",
// "FAIL" and "SKIP" lines and "coverage ...", the "note: ...", "wrote
// ..." and "next: ..." lines of several commands, replay's "skipped: ..."
// and "unreadable: ...", a watch's "watch: ...". A new result line of
// ours that starts with another word adds it here.
var resultWords = []string{
	"ok", "pass", "fail", "skip", "coverage", "note", "wrote", "next",
	"skipped", "unreadable", "watch",
}

// isResultWord reports whether s is one of resultWords, in any case.
func isResultWord(s string) bool {
	for _, w := range resultWords {
		if strings.EqualFold(s, w) {
			return true
		}
	}
	return false
}

// Escape returns s with each rune that is not printable written as its
// Go escape where it stands (a line break as \n, an escape as \x1b) and
// each byte that is not UTF-8 as \xNN: for a line of ours that holds a
// name or a value from a file, which must neither break the line nor
// reach a terminal raw. Quote quotes a name whole; Escape keeps the
// line's own words as they are.
func Escape(s string) string {
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

// Line returns another program's text (a registry's or a sidecar's
// error) for a message of ours: its white space runs as one space, cut to
// at most max bytes with "..." after, and quoted when not printable.
func Line(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "") + "..."
	}
	return Quote(s)
}
