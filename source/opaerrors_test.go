package source

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestShortenKeepsCharacters checks that a long message is cut on a
// character boundary: a message must stay valid UTF-8.
func TestShortenKeepsCharacters(t *testing.T) {
	for _, msg := range []string{strings.Repeat("é", 400), "x" + strings.Repeat("€", 200)} {
		got := Shorten(msg)
		if !utf8.ValidString(got) || len(got) > maxMessage+len("…") || !strings.HasSuffix(got, "…") {
			t.Errorf("Shorten(%d bytes) = %q; want valid UTF-8 of at most %d bytes ending in …", len(msg), got, maxMessage+len("…"))
		}
	}
}

// TestModuleErrorsSortByLine checks that errors in a bundle's module keep
// their positions, so that they sort by line, not as text ("11" before
// "3"), and that a module name with a control character is quoted.
func TestModuleErrorsSortByLine(t *testing.T) {
	errs := Errors{
		InModule("b.tar.gz", &Error{File: "/hcp/authz/x\x1b.rego", Pos: Pos{Line: 11, Col: 7}, Msg: "second"}),
		InModule("b.tar.gz", &Error{File: "/hcp/authz/x\x1b.rego", Pos: Pos{Line: 3, Col: 7}, Msg: "first"}),
	}
	want := `b.tar.gz: "hcp/authz/x\x1b.rego":3:7: first` + "\n" + `b.tar.gz: "hcp/authz/x\x1b.rego":11:7: second`
	if got := errs.Err().Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
