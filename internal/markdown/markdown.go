// Package markdown writes the pieces of the Markdown tables that matrix
// --diff and replay print for pull request comments.
package markdown

import (
	"strings"

	"github.com/hcp-rego/hcp-rego/source"
)

// Code writes s as a code span that a table cell can hold: a rune that is
// not printable makes it Go-quoted, "|" is escaped (GFM splits cells on it
// even in code), and the fence is one backtick longer than the longest run
// of backticks inside, padded when s is empty or starts or ends with one.
func Code(s string) string {
	s = strings.ReplaceAll(source.Printable(s), "|", `\|`)
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
