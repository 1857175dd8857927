package rego_test

import (
	"path/filepath"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/regolimit"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// TestReadExtTermBudget checks that the terms of --ext modules count in
// total against the run's budget, before each is parsed: two modules each
// under the limit but together over it are refused at the token of the
// second that passes it, and a module at the limit is read.
func TestReadExtTermBudget(t *testing.T) {
	dir := t.TempDir()
	// package (2) hcp (2) ext (2) x (2) := (3) [ (1), and the elements.
	a, b := filepath.Join(dir, "a.rego"), filepath.Join(dir, "b.rego")
	treetest.Write(t, dir, map[string]string{"a.rego": "package hcp.ext\nx := [0,0]\n", "b.rego": "package hcp.ext\ny := [0,0]\n"})
	if _, err := hcprego.ReadExt([]string{a, b}, regolimit.NewTermBudgetOf(28)); err != nil {
		t.Errorf("two modules of 14 terms, a budget of 28: %v", err)
	}
	_, err := hcprego.ReadExt([]string{a, b}, regolimit.NewTermBudgetOf(27))
	want := b + ":2:9: Rego refused: the modules read take more than the limit of 27 terms in all (identifiers, numbers, strings, brackets and operators), here"
	if err == nil || err.Error() != want {
		t.Errorf("two modules of 14 terms, a budget of 27: %v; want %s", err, want)
	}
	shared := regolimit.NewTermBudgetOf(27)
	if _, err := hcprego.ReadExt([]string{a}, shared); err != nil {
		t.Fatalf("a: %v", err)
	}
	if _, err := hcprego.ReadExt([]string{b}, shared); err == nil {
		t.Errorf("b read; want it refused: the budget is the run's, across every ReadExt")
	}
}
