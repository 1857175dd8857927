package integration

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestMakeGotestReportsFailures runs the recipe make test runs the Go tests
// with, on a package that fails on purpose, and checks what a newcomer
// reads: make fails, the failed test and its output come after the
// progress, the counts end the output, and a passing test's log is not
// there to bury the failure.
func TestMakeGotestReportsFailures(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	cmd := exec.Command("make", "-s", "--no-print-directory", "-C", "..", "gotest", "PKGS=./integration/testdata/maketest")
	stdout, err := cmd.Output()
	if _, failed := err.(*exec.ExitError); !failed {
		t.Fatalf("make gotest on a failing package: %v, want it to fail\n%s", err, stdout)
	}
	out := string(stdout)
	for _, want := range []string{
		"FAIL  integration/testdata/maketest",
		"=== FAIL: integration/testdata/maketest TestFailsOnPurpose",
		"maketest_test.go:18: the line before the failure",
		"maketest_test.go:19: the failure make must show",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("make gotest printed no %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "noise line") {
		t.Errorf("make gotest printed a passing test's log:\n%s", out)
	}
	if i, j := strings.Index(out, "FAIL  integration"), strings.Index(out, "=== FAIL:"); i < 0 || j < i {
		t.Errorf("the failed test's output does not come after the package line:\n%s", out)
	}
	last := out[strings.LastIndex(strings.TrimRight(out, "\n"), "\n")+1:]
	if !regexp.MustCompile(`^DONE 3 tests, 1 failure in \S+\n$`).MatchString(last) {
		t.Errorf("make gotest's last line is %q, want the counts", last)
	}
}
