package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/hcp-rego/hcp-rego/internal/bundletest"
)

var update = flag.Bool("u", false, "update the golden sections of testdata/script/*.txtar")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"hcp-rego": main})
}

// TestScripts runs the command-line tests in testdata/script. $TESTDATA
// names the repository's testdata folder, which holds the example packs.
func TestScripts(t *testing.T) {
	testdata, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(testdata, "script"),
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("TESTDATA", testdata)
			env.Setenv("HOME", env.WorkDir)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"tamper": tamper, "untime": untime},
	})
}

// testTimes are the times test's json and junit carry, which differ from
// one run to the next.
var testTimes = regexp.MustCompile(`time="[0-9]+\.[0-9]{6}"|"duration_ns": [0-9]+`)

// untime FILE writes T for each time of a test report in FILE, so that a
// golden file holds the rest exactly; a FILE with no time fails.
func untime(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: untime FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	if !testTimes.Match(data) {
		ts.Fatalf("%s holds no test time", args[0])
	}
	out := testTimes.ReplaceAllFunc(data, func(m []byte) []byte {
		if m[0] == 't' {
			return []byte(`time="T"`)
		}
		return []byte(`"duration_ns": T`)
	})
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), out, 0o644))
}

// tamper IN MEMBER OUT writes a copy of bundle IN with one byte of MEMBER
// changed, as an attacker or a broken mirror would.
func tamper(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: tamper IN MEMBER OUT")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	out, err := bundletest.FlipByte(data, args[1])
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), out, 0o644))
}
