package printable

import "testing"

// TestQuote checks that a name that is not printable is quoted whole.
func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"documents.search", "documents.search"},
		{"Ünïcode ok", "Ünïcode ok"},
		{"tab\there", `"tab\there"`},
		{"\x1b]0;title\x07", `"\x1b]0;title\a"`},
		{"x\x9b31m.rego", `"x\x9b31m.rego"`}, // a lone byte: a terminal's CSI
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLine checks that another program's text comes out on one line,
// within its bound, and printable.
func TestLine(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"  a\n\tb  c ", "a b c"},
		{"abcdefghij", "abcdefgh..."},
		{"aaaaaaaéb", "aaaaaaa..."}, // cut inside a rune: the broken rune is dropped
		{"a\x1b[2Jb", `"a\x1b[2Jb"`},
	} {
		if got := Line(tt.in, 8); got != tt.want {
			t.Errorf("Line(%q, 8) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestEscape checks that a line holding input text keeps its words and
// escapes each control character where it stands.
func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"no pack at packs/shop", "no pack at packs/shop"},
		{"no pack at a\n::warning file=x::b", `no pack at a\n::warning file=x::b`},
		{"\x1b[31mred\a\r", `\x1b[31mred\a\r`},
		{"nel\u0085 csi\u009b", `nel\u0085 csi\u009b`},
		{"x\x9b31m", `x\x9b31m`}, // a lone byte
		{"Ünïcode ok", "Ünïcode ok"},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLineStart checks that a name first on a line is quoted when it
// would start a workflow command or read as a result line of ours, and
// kept as it is otherwise.
func TestLineStart(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"packs/shop/policy.json", "packs/shop/policy.json"},
		{"grants/acme.json", "grants/acme.json"},
		{"http://10.0.0.7:8181", "http://10.0.0.7:8181"},
		{"shop", "shop"},
		{"okay.json", "okay.json"},
		{"FAIL/policy.json", "FAIL/policy.json"},
		{"a::b/policy.json", "a::b/policy.json"},
		{"::error::x/policy.json", `"::error::x/policy.json"`},
		{"::set-output name=a::b", `"::set-output name=a::b"`},
		{":", `":"`}, // ":" before ":1:2" starts "::"
		{"3 passed, 0 failed.cases.yaml", `"3 passed, 0 failed.cases.yaml"`},
		{"ok: 2 packs", `"ok: 2 packs"`},
		{"PASS x", `"PASS x"`},
		{"my packs/shop", `"my packs/shop"`},
		{"ok", `"ok"`}, // "ok" before ": no such pack folder"
		{"ok:", `"ok:"`},
		{"FAIL", `"FAIL"`},
		{"Fail", `"Fail"`},
		{"note", `"note"`},
		{"allowed", "allowed"}, // a decision's code, first on eval's line
		{"x\n::warning::y", `"x\n::warning::y"`},
	} {
		if got := LineStart(tc.in); got != tc.want {
			t.Errorf("LineStart(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
