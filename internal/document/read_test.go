package document

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSourceBytes holds the run's limit of bytes at its edge: files
// that fill it are read; the byte past it is refused at its line and
// column, the hint named; and a file's own limit is refused as ReadFile
// refuses one.
func TestReadSourceBytes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a, b := write("a.json", "[1,\n2]\n"), write("b.json", "{\n\"x\": 1}\n") // 7 and 10 bytes
	limits := Limits{JSON: 1 << 20, File: 1 << 20, YAML: 1, Aliases: 1, Bytes: 17, Hint: "--flag raises it"}
	budget := NewBudgetOf(limits)
	for _, path := range []string{a, b} {
		if _, err := ReadSource(path, budget, 0); err != nil {
			t.Fatalf("17 bytes under a limit of 17: %v", err)
		}
	}
	if budget.Refused() {
		t.Fatal("a run that fits its limit was refused")
	}
	limits.Bytes = 12
	budget = NewBudgetOf(limits)
	if _, err := ReadSource(a, budget, 0); err != nil {
		t.Fatal(err)
	}
	_, err := ReadSource(b, budget, 0)
	if want := b + ":2:4: more bytes than the limit of 12 bytes for the files of one run; --flag raises it"; err == nil || err.Error() != want {
		t.Fatalf("the 13th byte:\n got %v\nwant %s", err, want)
	}
	if !budget.Refused() {
		t.Error("the budget does not say it refused a file")
	}
	big := write("big.json", "["+strings.Repeat("0,", 1<<20)+"0]")
	_, err = ReadSource(big, NewBudgetOf(Limits{Bytes: 1 << 30}), 1<<20)
	if want := big + ": file is larger than the limit of 1 MiB"; err == nil || err.Error() != want {
		t.Fatalf("a file past its own limit:\n got %v\nwant %s", err, want)
	}
}
