package compile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// jsonQuote is quote as encoding/json writes it, without the fast path
// for plain ASCII.
func jsonQuote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.ReplaceAll(strings.TrimSuffix(buf.String(), "\n"), "\uFEFF", `\ufeff`)
}

// TestQuotePlainASCII holds quote's fast path for plain ASCII to the
// literal encoding/json writes: every byte alone and beside plain text,
// and strings that look plain but are not.
func TestQuotePlainASCII(t *testing.T) {
	cases := []string{"", "pack-0001", "op01.run {target} --amount {amount}", "<a&b>", "~!@#$%^*()_+`-=[]{}|;':,./?", "a\x7f", "é", "\u2028", "\ufeff", "a\"b", `a\b`, "tab\t", "\x00"}
	for c := range 256 {
		cases = append(cases, string(rune(c)), "x"+string([]byte{byte(c)})+"y")
	}
	for _, s := range cases {
		if got, want := quote(s), jsonQuote(s); got != want {
			t.Errorf("quote(%q) = %s, want %s", s, got, want)
		}
	}
}
