package source

import (
	"slices"
	"testing"
)

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"documents.search", "documents.search"},
		{"Ünïcode ok", "Ünïcode ok"},
		{"tab\there", `"tab\there"`},
		{"\x1b]0;title\x07", `"\x1b]0;title\a"`},
		{"x\x9b31m.rego", `"x\x9b31m.rego"`}, // a lone byte: a terminal's CSI
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestErrorsLeftAsTheyAre checks that rendering Errors, or taking Err,
// does not sort or compact the caller's slice: a caller may go on adding to
// it, and an error may be printed from two goroutines at once.
func TestErrorsLeftAsTheyAre(t *testing.T) {
	var errs Errors
	errs.Add("b.json", Pos{Line: 2, Col: 1}, "second")
	errs.Add("a.json", Pos{Line: 1, Col: 1}, "first")
	errs.Add("a.json", Pos{Line: 1, Col: 1}, "first")
	before := slices.Clone(errs)
	err := errs.Err()
	_ = errs.Error()
	if !slices.Equal(errs, before) {
		t.Errorf("errs changed to %v; want %v", errs, before)
	}
	if want := "a.json:1:1: first\nb.json:2:1: second"; err.Error() != want {
		t.Errorf("Err() = %q; want %q", err, want)
	}
}

// TestOneLine checks that another program's text comes out on one line,
// within its bound, and printable.
func TestOneLine(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"  a\n\tb  c ", "a b c"},
		{"abcdefghij", "abcdefgh..."},
		{"aaaaaaaéb", "aaaaaaa..."}, // cut inside a rune: the broken rune is dropped
		{"a\x1b[2Jb", `"a\x1b[2Jb"`},
	} {
		if got := OneLine(tt.in, 8); got != tt.want {
			t.Errorf("OneLine(%q, 8) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestEscaped checks that a line holding input text keeps its words and
// escapes each control character where it stands.
func TestEscaped(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"no pack at packs/shop", "no pack at packs/shop"},
		{"no pack at a\n::warning file=x::b", `no pack at a\n::warning file=x::b`},
		{"\x1b[31mred\a\r", `\x1b[31mred\a\r`},
		{"nel\u0085 csi\u009b", `nel\u0085 csi\u009b`},
		{"x\x9b31m", `x\x9b31m`}, // a lone byte
		{"Ünïcode ok", "Ünïcode ok"},
	} {
		if got := Escaped(tc.in); got != tc.want {
			t.Errorf("Escaped(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestErrorNamesPrintable checks that a file or folder name, and what a
// message quotes, can start no line of an error's text and send no
// escape to a terminal (SPEC §5): every error message is a source.Error
// or holds them.
func TestErrorNamesPrintable(t *testing.T) {
	const name = "a\n::warning file=x::\x1b[31m.json"
	var errs Errors
	errs.Add(name, Pos{Line: 2, Col: 3}, "no pack at %s", name)
	errs.Add(name, Pos{}, "unreadable")
	errs.Merge(name, &Error{Msg: "kept whole: " + name})
	want := `kept whole: a\n::warning file=x::\x1b[31m.json` + "\n" +
		`"a\n::warning file=x::\x1b[31m.json": unreadable` + "\n" +
		`"a\n::warning file=x::\x1b[31m.json":2:3: no pack at a\n::warning file=x::\x1b[31m.json`
	if got := errs.Err().Error(); got != want {
		t.Errorf("rendered\n%s\nwant\n%s", got, want)
	}
}
