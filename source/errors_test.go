package source

import "testing"

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"documents.search", "documents.search"},
		{"Ünïcode ok", "Ünïcode ok"},
		{"tab\there", `"tab\there"`},
		{"\x1b]0;title\x07", `"\x1b]0;title\a"`},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
