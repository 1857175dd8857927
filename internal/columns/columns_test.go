package columns

import (
	"strings"
	"testing"
)

// TestWrite pads each cell but the last to its column's widest, counting
// runes, with two spaces between columns.
func TestWrite(t *testing.T) {
	var b strings.Builder
	Write(&b, [][]string{{"KEY", "VERDICT", "NOTE"}, {"é", "wider", ""}, {"documents.search", "same", "x"}})
	want := "KEY               VERDICT  NOTE\n" +
		"é                 wider    \n" +
		"documents.search  same     x\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
