package rego

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
