// Package regolimit bounds the Rego that hcp-rego reads before OPA
// parses or compiles it: the terms of a run's modules, counted from their
// text, and the expressions of a rule body, whose compilation time grows
// with their square.
package regolimit

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// MaxRegoTerms bounds the terms that the Rego modules hcp-rego parses in
// one run from its inputs (--ext modules, and Rego test files) may make,
// all together, counted by RegoTerms before anything is parsed
// (docs/reliability.md, "Rego source is bounded in terms, in total").
// What OPA's parser and compiler hold is terms, not bytes: a 4 MB module
// `x := [0,0,...]` (two million terms) took 1.7 GB.
//
// Measured with RegoTerms: the embedded library makes 4,912 terms in 24
// KB (0.20 a byte); the modules hcp-rego generates 0.019 a byte (long
// strings): 188,912 terms with the library for the 1000 packs of
// bench/largeset (10 MB), 556,912 for its 3000 packs (30 MB). A runtime's
// rules or a repository's Rego tests are of the library's size; the limit,
// 1,048,576, is 210 times the library and 1.9 times the largest generated
// set (a bundle's modules count against bundles.Limits.Terms instead).
// eval --ext holds per term, beyond a base of 28 MB, for shapes of 500,000
// terms and more: 1.2 KB for long arrays of numbers or strings and for
// objects, 0.9 for sets, 0.8 for many rules, 0.4 for long refs, 0.7 for
// calls and sums; so at most some 1.3 GB at the limit. (Deep nesting stops
// at OPA's limit of parser recursion.)
const MaxRegoTerms = 1 << 20

// TermBudget is what the Rego modules of one run may still make,
// MaxRegoTerms terms at first: a command makes one and counts each module
// with Take before it parses it. It is safe for concurrent use.
type TermBudget struct {
	mu    sync.Mutex
	limit int64
	used  int64
}

// NewTermBudget returns the budget of one run, of MaxRegoTerms terms.
func NewTermBudget() *TermBudget { return NewTermBudgetOf(MaxRegoTerms) }

// NewTermBudgetOf returns a budget of limit terms (for tests).
func NewTermBudgetOf(limit int64) *TermBudget { return &TermBudget{limit: limit} }

// Take counts the terms of src, the Rego text of file, against the budget.
// A text that takes the run past the limit is refused, at the token that
// passes it, and counts nothing.
func (b *TermBudget) Take(file string, src []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, at := RegoTerms(src, b.limit-b.used)
	if at >= 0 {
		return &problem.Error{File: file, Pos: document.PosAt(src, at),
			Msg: fmt.Sprintf("Rego refused: the modules read take more than the limit of %d terms in all (identifiers, numbers, strings, brackets and operators), here", b.limit)}
	}
	b.used += n
	return nil
}

// RegoTerms counts, in one pass over src and before it is parsed, the
// terms that the Rego text src can make: each number, string (a template
// string's each part), opening bracket and comment (which OPA's parser
// keeps, with its place) counts one, and an identifier or keyword, an
// operator, "in" and a call as many terms as OPA's parser may build for
// them. White space, closing brackets, commas, colons, dots and
// semicolons count nothing. It is an upper bound within a
// small factor of the terms OPA's parser builds (`[0,0,0]` is 4 counted
// and 4 built; `input.a.b` 6 and 4; `1.5` 2 and 1; `x := 1` 6 and 4), and it
// reads the text as OPA's scanner does: a "#" in a string starts no
// comment, a quote in a comment starts no string, escapes are skipped as
// the scanner skips them, and a template string's expressions are counted
// as code. Text that the scanner refuses stops the parser at its first
// error, whatever is counted past it.
//
// Counting stops at the token that takes the count past limit: at is its
// offset, -1 when the count is at most limit.
func RegoTerms(src []byte, limit int64) (n int64, at int) {
	c := termCounter{src: src, limit: limit, at: -1}
	c.code()
	return c.n, c.at
}

// termCounter is the state of one RegoTerms.
type termCounter struct {
	src   []byte
	i     int
	n     int64
	limit int64
	at    int // where the count passed limit, or -1
	// open is the stack of what the code read is in: '{' for a brace,
	// '"' or '`' for the expression of a template string ("{" in it).
	open []byte
}

// count counts w terms of a token that starts at offset start, and
// reports whether counting goes on.
func (c *termCounter) count(start int, w int64) bool {
	if c.n += w; c.n > c.limit {
		c.at = start
		return false
	}
	return true
}

// The terms a token counts, where it is more than one, as OPA's parser
// builds them: an identifier may be a variable in a reference of its own
// (input), an operator is a call of a reference to a variable (plus(a,
// b)), "in" a call of internal.member_2, "(" a call and its reference,
// and a template string a term besides its first part.
const (
	varTerms      = 2
	operatorTerms = 3
	inTerms       = 4
	callTerms     = 2
	templateTerms = 2
)

// code counts the terms of code from c.i to the end of the text.
func (c *termCounter) code() {
	for c.i < len(c.src) {
		start, ch := c.i, c.src[c.i]
		c.i++
		w := int64(1)
		switch {
		case isWordByte(ch):
			for c.i < len(c.src) && isWordByte(c.src[c.i]) {
				c.i++
			}
			switch {
			case string(c.src[start:c.i]) == "in":
				w = inTerms
			case !isDigitByte(ch):
				w = varTerms
			}
		case ch == '#':
			// A comment is one: OPA's parser keeps each, with its place.
			for c.i < len(c.src) && c.src[c.i] != '\n' {
				c.i++
			}
		case ch == '"':
			c.str('"', false)
		case ch == '`':
			c.str('`', false)
		case ch == '$' && c.i < len(c.src) && (c.src[c.i] == '"' || c.src[c.i] == '`'):
			c.i++
			c.str(c.src[c.i-1], true)
			w = templateTerms
		case ch == '{':
			c.open = append(c.open, '{')
		case ch == '}':
			if len(c.open) == 0 {
				continue
			}
			top := c.open[len(c.open)-1]
			c.open = c.open[:len(c.open)-1]
			if top == '{' {
				continue
			}
			// The end of a template string's expression: the string goes on.
			c.str(top, true)
		case ch == '[':
		case ch == '(':
			w = callTerms
		case ch == ':' || ch == '=' || ch == '!' || ch == '<' || ch == '>':
			// ":=", "==", "!=", "<=" and ">=" are one operator; ":"
			// alone (an object's member, or "some k, v in") makes none.
			if c.i < len(c.src) && c.src[c.i] == '=' {
				c.i++
			} else if ch == ':' {
				continue
			}
			w = operatorTerms
		case ch == '+' || ch == '-' || ch == '*' || ch == '/' || ch == '%' || ch == '&' || ch == '|':
			w = operatorTerms
		default:
			continue // white space, closing brackets, ",", ".", ";" and what the scanner refuses
		}
		if !c.count(start, w) {
			return
		}
	}
}

// str skips the rest of a string whose opening quote is read, quote '"'
// or '`', as OPA's scanner reads it; for a template string, up to its end
// or to the "{" of an expression, which the code then counts up to its
// "}". A string that a line or the text ends is the scanner's error.
func (c *termCounter) str(quote byte, template bool) {
	for c.i < len(c.src) {
		ch := c.src[c.i]
		if quote == '"' && ch == '\n' {
			return
		}
		c.i++
		switch {
		case ch == quote:
			return
		case template && ch == '{':
			c.open = append(c.open, quote)
			return
		case ch == '\\' && quote == '"':
			c.escape(template)
		case ch == '\\' && template && c.i < len(c.src) && c.src[c.i] == '{':
			c.i++
		}
	}
}

// escape skips what OPA's scanner skips after a backslash in a quoted
// string: one character of \ " / b f n r t (and { in a template string),
// or four for u, whatever they are; nothing after any other.
func (c *termCounter) escape(template bool) {
	if c.i >= len(c.src) {
		return
	}
	skip := 0
	switch ch := c.src[c.i]; {
	case ch == 'u':
		skip = 4
	case ch == '{' && template:
		skip = 1
	case ch == '\\' || ch == '"' || ch == '/' || ch == 'b' || ch == 'f' || ch == 'n' || ch == 'r' || ch == 't':
		skip = 1
	}
	for ; skip > 0 && c.i < len(c.src); skip-- {
		_, w := utf8.DecodeRune(c.src[c.i:])
		c.i += w
	}
}

// isDigitByte reports whether ch is an ASCII digit, which starts a number.
func isDigitByte(ch byte) bool { return '0' <= ch && ch <= '9' }

// isWordByte reports whether ch is part of an identifier, keyword or
// number. A letter or digit beyond ASCII, which the scanner takes inside
// an identifier, splits it: it counts more, never less.
func isWordByte(ch byte) bool {
	return 'a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z' || '0' <= ch && ch <= '9' || ch == '_'
}
