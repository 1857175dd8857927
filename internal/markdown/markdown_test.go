package markdown

import "testing"

// TestMarkdownCode holds what a table cell can hold: pipes escaped,
// fences past any run of backticks, unprintable text quoted.
func TestMarkdownCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"mail.send", "`mail.send`"},
		{"a|b", "`a\\|b`"},
		{"a`b", "``a`b``"},
		{"`x``", "``` `x`` ```"},
		{"line\nbreak", "`\"line\\nbreak\"`"},
		{"\x1b[31m", "`\"\\x1b[31m\"`"},
		{"", "`  `"},
	} {
		if got := Code(tc.in); got != tc.want {
			t.Errorf("Code(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
