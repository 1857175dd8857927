package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/signal"
	"regexp"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/testrun"
)

type testOptions struct {
	paths     []string
	format    string
	coverage  bool
	threshold string
	explain   bool
	watch     bool
	run       string
	verbose   bool
	sources   sourceLimit
	bundles   bundleLimit
}

func newTestCommand(s streams) *cobra.Command {
	var o testOptions
	cmd := &cobra.Command{
		Use:   "test [PATH...] [--format pretty|json|junit|github] [--run REGEX] [-v] [--coverage] [--threshold PCT] [--explain] [--watch]",
		Short: "Run decision case files and Rego unit tests, with coverage of the model",
		Long: `Test finds, under each PATH (default "."), packs, grant files, decision case
files (*.cases.yaml, *.cases.yml, *.cases.json) and Rego unit tests
(*_test.rego). It lints and compiles everything first: any problem is bad
input (exit 2) and no test runs. Then it decides every case and runs every
Rego test with OPA's tester. The run ends with "N passed, N failed": the last
line of stdout for pretty and github, on stderr for json and junit, whose
stdout is one document. Exit 0 when all pass, 1 when any fails or coverage is
under --threshold, 2 on bad input or when there is no test to run.

A case file that names bundles (bundles: a policy bundle and shards of its
build, or a sharded build's folder) instead of packs and grants has its
cases decided with them as a sidecar that loads them decides, read as
eval --bundle reads them; --max-bundle-bytes raises what each may hold.

--run REGEX runs only the cases and Rego tests whose names it matches (Go
regular expression syntax, anywhere in the name, as opa test --run and go
test -run match): a case's name as written, a Rego test's as it is
reported (data.PACKAGE.RULE). -v adds each test's time to its line; json
(duration_ns) and junit (time, in seconds) always carry it.

--coverage reports which policy rows and confirm gates the cases reached,
with which outcomes, and which grants gave a capability. The percentage is
reached units (rows, and gates that some case saw hold) over all units.
--threshold PCT (0 to 100) implies --coverage and fails the run below it.

A failing case always shows the code and error of the decision that came.
--explain adds, under each failing case, the walk of the chain that
"eval --explain" prints.

--watch runs the tests, then again within 300 ms of each change to a pack,
grant file, case file or Rego file under PATH (folders added later too),
printing the failures and the totals line. Bad input prints its errors and
the watch goes on; Ctrl-C ends it with exit 0 ("hcp-rego test --watch .").`,
		Example: `  hcp-rego test testdata/
  hcp-rego test --format junit . > report.xml
  hcp-rego test -v --run 'transfer|test_refusal' testdata/
  hcp-rego test --coverage --threshold 80 testdata/packs testdata/cases testdata/grants`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.paths = args
			return runTest(cmd.Context(), s, o)
		},
	}
	cmd.Flags().StringVar(&o.format, "format", "pretty", "output format: pretty, json, junit or github")
	cmd.Flags().BoolVar(&o.coverage, "coverage", false, "report coverage of the model: rows, gates, outcomes, grants")
	cmd.Flags().StringVar(&o.threshold, "threshold", "", "fail below this coverage percentage, 0 to 100 (implies --coverage)")
	cmd.Flags().BoolVar(&o.explain, "explain", false, "walk the chain under each failing case, as eval --explain does")
	cmd.Flags().BoolVar(&o.watch, "watch", false, "run again on each change under PATH until Ctrl-C")
	cmd.Flags().StringVar(&o.run, "run", "", "run only the cases and Rego tests whose names this regular expression matches")
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "print each test's time")
	addSourceLimitFlag(cmd.Flags(), &o.sources)
	addBundleLimitFlag(cmd.Flags(), &o.bundles)
	return cmd
}

// writers are the report formats; each writes the report to stdout.
var writers = map[string]func(*testrun.Report, io.Writer) error{
	"pretty": (*testrun.Report).WritePretty,
	"json":   (*testrun.Report).WriteJSON,
	"junit":  (*testrun.Report).WriteJUnit,
	"github": (*testrun.Report).WriteGitHub,
}

func runTest(ctx context.Context, s streams, o testOptions) error {
	write, ok := writers[o.format]
	if !ok {
		return badInput(fmt.Errorf("--format %q: want pretty, json, junit or github", o.format))
	}
	threshold, err := parseThreshold(o.threshold)
	if err != nil {
		return badInput(err)
	}
	selected, err := parseRun(o.run)
	if err != nil {
		return badInput(err)
	}
	run := testrun.Options{Paths: o.paths, Coverage: o.coverage || threshold != nil, Explain: o.explain, Run: selected, Times: o.verbose, Limits: o.sources.limits(),
		BundleLimits: o.bundles.limits(), BundleHint: raiseBundles}
	if o.watch {
		return watchTests(ctx, s, o, run)
	}
	report, err := testrun.Run(ctx, run)
	if err != nil {
		return badInput(err)
	}
	if err := write(report, s.out); err != nil {
		return err
	}
	summary := s.out
	if o.format == "json" || o.format == "junit" {
		summary = s.err
		if report.Coverage != nil && o.format == "junit" {
			// JUnit has no place for it: what no case reached goes to
			// stderr, whole (docs/tests.md, "The totals line").
			fmt.Fprint(summary, report.Coverage.Text())
		}
	}
	fmt.Fprintln(summary, report.Totals())
	failed := report.Count(testrun.Fail) > 0
	if threshold != nil && report.Coverage.Below(threshold) {
		fmt.Fprintf(s.err, "coverage %s is below the threshold of %s%%\n", report.Coverage.Percent(), o.threshold)
		failed = true
	}
	if failed {
		return findings()
	}
	return nil
}

// watchTests runs the tests on each change until Ctrl-C, which is exit 0.
func watchTests(ctx context.Context, s streams, o testOptions, run testrun.Options) error {
	if o.format != "pretty" || o.threshold != "" {
		return badInput(errors.New("--watch prints failures as --format pretty does, and takes no --format or --threshold"))
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	if err := testrun.Watch(ctx, run, s.out, s.err); err != nil {
		return badInput(err)
	}
	return nil
}

// parseRun reads --run, a regular expression; nil when the flag is not
// given.
func parseRun(text string) (*regexp.Regexp, error) {
	if text == "" {
		return nil, nil
	}
	re, err := regexp.Compile(text)
	if err != nil {
		return nil, fmt.Errorf("--run %s: not a regular expression: %v", printable.Quote(strconv.Quote(text)), err)
	}
	return re, nil
}

var percentage = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// parseThreshold reads --threshold, a percentage from 0 to 100; nil when
// the flag is not given.
func parseThreshold(text string) (*big.Rat, error) {
	if text == "" {
		return nil, nil
	}
	r, ok := new(big.Rat).SetString(text)
	if !percentage.MatchString(text) || !ok || r.Cmp(big.NewRat(100, 1)) > 0 {
		return nil, fmt.Errorf("--threshold %q: want a percentage from 0 to 100, such as 80 or 62.5", text)
	}
	return r, nil
}
