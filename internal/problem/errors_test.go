package problem

import (
	"slices"
	"testing"
)

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

// TestErrorNamesPrintable checks that a file or folder name, and what a
// message quotes, can start no line of an error's text and send no
// escape to a terminal (docs/reliability.md, "Names cannot write output of
// their own"): every error message is a problem.Error
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

// TestErrorFileStartsNoCommand checks that a file name that is printable
// but would start a workflow command or a result line of ours, first on
// the problem's line, is quoted there, and an ordinary one is not; and
// that a module named inside a bundle is quoted only where it is not
// printable, the bundle first as its maker wrote it.
func TestErrorFileStartsNoCommand(t *testing.T) {
	var errs Errors
	errs.Add("::error::x/policy.json", Pos{Line: 2, Col: 3}, "missing field")
	errs.Add("3 passed, 0 failed.cases.yaml", Pos{}, "unreadable")
	errs.Add("ok", Pos{}, "no such pack folder")
	errs.Add("packs/shop/policy.json", Pos{Line: 1, Col: 1}, "first")
	errs = append(errs, InModule("b.tar.gz: bundle refused", &Error{File: "/hcp/::x.rego", Pos: Pos{Line: 4, Col: 1}, Msg: "parse"}))
	want := `"3 passed, 0 failed.cases.yaml": unreadable` + "\n" +
		`"::error::x/policy.json":2:3: missing field` + "\n" +
		`b.tar.gz: bundle refused: hcp/::x.rego:4:1: parse` + "\n" +
		`"ok": no such pack folder` + "\n" +
		`packs/shop/policy.json:1:1: first`
	if got := errs.Err().Error(); got != want {
		t.Errorf("rendered\n%s\nwant\n%s", got, want)
	}
}

// TestHintOnItsOwnLine checks that a hint follows its message on an
// indented line of its own, so that the message line stays the same words
// (docs/commands.md, "Exit codes"), and that what the hint quotes can
// start no line either.
func TestHintOnItsOwnLine(t *testing.T) {
	var errs Errors
	errs.Add("g.json", Pos{Line: 3, Col: 7}, "grant 2: verb %q not in policy for pack %q", "refund", "ledger").Hint = "the verbs, closest first: \"x\n::error::y\x1b[2J\""
	errs.Add("a.json", Pos{Line: 1, Col: 1}, "first")
	want := "a.json:1:1: first\n" +
		`g.json:3:7: grant 2: verb "refund" not in policy for pack "ledger"` + "\n" +
		`  hint: the verbs, closest first: "x\n::error::y\x1b[2J"`
	if got := errs.Err().Error(); got != want {
		t.Errorf("rendered\n%s\nwant\n%s", got, want)
	}
}
