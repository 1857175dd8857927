package testrun

import (
	"path/filepath"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/regolimit"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// TestRegoTestsTermBudget checks that the terms of Rego test files count
// in total against the run's budget before each is parsed: two files each
// under the limit but together over it are refused at the token of the
// second that passes it, and files at the limit are parsed.
func TestRegoTestsTermBudget(t *testing.T) {
	dir := t.TempDir()
	// package (2) p_test (2) x (2) := (3) [ (1), and the elements.
	a, b := filepath.Join(dir, "a_test.rego"), filepath.Join(dir, "b_test.rego")
	treetest.Write(t, dir, map[string]string{"a_test.rego": "package p_test\nx := [0,0]\n", "b_test.rego": "package p_test\ny := [0,0]\n"})
	if mods, err := parseRegoTests([]string{a, b}, regolimit.NewTermBudgetOf(24)); err != nil || len(mods) != 2 {
		t.Errorf("two files of 12 terms, a budget of 24: %d parsed, %v", len(mods), err)
	}
	_, err := parseRegoTests([]string{a, b}, regolimit.NewTermBudgetOf(23))
	want := b + ":2:9: Rego refused: the modules read take more than the limit of 23 terms in all (identifiers, numbers, strings, brackets and operators), here"
	if err == nil || err.Error() != want {
		t.Errorf("two files of 12 terms, a budget of 23: %v; want %s", err, want)
	}
}
