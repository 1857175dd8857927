// Package markdown writes the pieces of the Markdown tables that matrix
// --diff and replay print for pull request comments.
package markdown

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// Code writes s as a code span that a table cell can hold: a rune that is
// not printable makes it Go-quoted, "|" is escaped (GFM splits cells on it
// even in code), and the fence is one backtick longer than the longest run
// of backticks inside, padded when s is empty or starts or ends with one.
// A "|" after a backslash cannot be held so (see htmlCode).
func Code(s string) string {
	s = printable.Quote(s)
	if strings.Contains(s, `\|`) {
		return htmlCode(s)
	}
	s = strings.ReplaceAll(s, "|", `\|`)
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if s == "" || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// htmlCode writes s as an HTML code element whose every ASCII character
// but letters, digits and spaces is a numeric character reference. A code
// span in a GFM table cell cannot show a backslash before a pipe: the
// table reads "\\|" as an escaped backslash and a pipe that splits the
// cell, so a key could push the real change out of its row. In the
// element nothing of s is read as Markdown or HTML, and the table sees no
// pipe.
func htmlCode(s string) string {
	var b strings.Builder
	b.WriteString("<code>")
	for _, r := range s {
		if r < utf8.RuneSelf && !(r == ' ' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			fmt.Fprintf(&b, "&#%d;", r)
			continue
		}
		b.WriteRune(r)
	}
	b.WriteString("</code>")
	return b.String()
}
