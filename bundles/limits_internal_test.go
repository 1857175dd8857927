package bundles

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestBudgetCountsWhatIsRead checks that the budget counts the bytes read,
// not the size the header or the file system gave (a file that grew
// between listing and reading): past a limit, the read is refused.
func TestBudgetCountsWhatIsRead(t *testing.T) {
	from := func(n int) func(io.Writer, int64) (int64, error) {
		return func(w io.Writer, max int64) (int64, error) { return io.CopyN(w, bytes.NewReader(make([]byte, n)), max) }
	}
	b := &budget{path: "b", lim: Limits{FileBytes: 1024, TotalBytes: 1536}}
	var over *LimitError
	if _, err := b.read("grown", 10, from(1025)); !errors.As(err, &over) || over.File != "grown" || over.Limit != 1024 {
		t.Errorf("a file said to hold 10 bytes that holds 1025: error %v, want it over the limit of a file", err)
	}
	b = &budget{path: "b", lim: Limits{FileBytes: 1024, TotalBytes: 1536}}
	if buf, err := b.read("first", 0, from(1000)); err != nil || buf.Len() != 1000 {
		t.Fatalf("first file: %v", err)
	}
	if _, err := b.read("second", 0, from(537)); !errors.As(err, &over) || over.File != "" || over.Limit != 1536 {
		t.Errorf("1537 bytes in all: error %v, want them over the limit in all", err)
	}
}
