// Command report measures hcp-rego at scale and prints the table of
// `make bench`: decision latency in a real OPA and in the embedded
// evaluator, as ratios to a one-rule policy measured in the same run;
// a listing of what a principal may do against decisions one by one;
// build time and memory against `opa build` on the same output, and how
// builds grow; OPA's activation of the large bundle; replay of a
// million logged decisions against it; compare of two versions of it;
// and its push, pull and rollout
// through a loopback OCI registry; rollouts of three sizes to a
// sidecar polling an HTTP bundle server, checked decision by decision
// while it replaces a revision; a curve of up to a million grants (three
// million with -huge); and what a sidecar's settings (its CPUs and
// GOMAXPROCS, log level, store) cost a decision. With -before, the tables
// that can measure an older hcp-rego's bundles beside this tree's do.
// Every figure comes
// from this run on this machine: the median of several runs, interleaved
// so that a noisy moment of a shared machine falls on every policy alike.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	quick := flag.Bool("quick", false, "smaller sets and shorter runs, to try the tool")
	rounds := flag.Int("rounds", 5, "runs of each measurement, interleaved; the tables give their median")
	only := flag.String("only", "", "measure these tables only, separated by commas: builds, rest, permissions, opa-bench, embedded, activation, replay, compare, publishing, rollout, grants, sidecar or shards")
	huge := flag.Bool("huge", false, "the grants table measures 3,000,000 grants too, and the shards table 10,000,000 (sharded builds only)")
	before := flag.String("before", "", "an hcp-rego built from another commit: the rest, opa-bench, embedded, activation and grants tables measure its bundles beside this tree's")
	layout := flag.String("layout", layoutCurrent, "the rollout table's bundles: "+layoutCurrent+"; "+layoutLegacy+", as built before the grant tables left hcp (the old rollout cost); "+layoutUpgrade+", r1 as before and r2 as now (the one-time cost of the upgrade); "+layoutListed+", r1 with the manifest listing every source file, as built before the list moved to data, and r2 as now")
	flag.Parse()
	if *quick {
		*rounds = 1
	}
	if err := run(context.Background(), options{quick: *quick, huge: *huge, rounds: *rounds, only: *only, layout: *layout, before: *before}); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// step is one table of the report, by the name -only takes.
type step struct {
	name    string
	measure func(*tools, map[string]*set) (table, error)
	// ownSets: the table builds what it measures, so that with -only
	// the builds table need not run first.
	ownSets bool
}

// steps are the report's tables, in order.
var steps = []step{
	{"builds", builds, false},
	{"rest", latencyREST, false},
	{"permissions", listingVsDecisions, false},
	{"opa-bench", latencyInOPA, false},
	{"embedded", latencyEmbedded, false},
	{"activation", activation, true},
	{"replay", replayLarge, false},
	{"compare", compareLarge, true},
	{"publishing", publishing, false},
	{"rollout", rollouts, true},
	{"grants", grantCurve, true},
	{"sidecar", sidecarSettingsTable, true},
	{"shards", shards, true},
}

// options are the report's flags.
type options struct {
	quick, huge          bool
	rounds               int
	only, layout, before string
}

func run(ctx context.Context, o options) error {
	wanted, err := wantedSteps(o.only)
	if err != nil {
		return err
	}
	if !slices.Contains([]string{layoutCurrent, layoutLegacy, layoutUpgrade, layoutListed}, o.layout) {
		return fmt.Errorf("-layout %q: want %s, %s, %s or %s", o.layout, layoutCurrent, layoutLegacy, layoutUpgrade, layoutListed)
	}
	if o.before != "" {
		abs, err := filepath.Abs(o.before)
		if err != nil {
			return err
		}
		if info, err := os.Stat(abs); err != nil || info.IsDir() {
			return fmt.Errorf("-before %s: not an hcp-rego binary (%v)", o.before, err)
		}
		o.before = abs
	}
	work, err := os.MkdirTemp("", "hcp-rego-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	t, err := newTools(ctx, work, o.rounds)
	if err != nil {
		return err
	}
	t.quick, t.huge, t.layout, t.before = o.quick, o.huge, o.layout, o.before
	sizes := standardSizes
	if o.quick {
		sizes = quickSizes
	}
	sets, err := writeSets(filepath.Join(work, "sets"), sizes)
	if err != nil {
		return err
	}
	for _, step := range steps {
		// The builds make the bundles most other tables measure: with
		// -only they run all the same, unprinted.
		if !wanted[step.name] && (step.name != "builds" || !needBuilds(wanted)) {
			continue
		}
		tb, err := step.measure(t, sets)
		if err != nil {
			return err
		}
		if wanted[step.name] {
			fmt.Println(tb.markdown())
		}
		if tb.failure != "" {
			return fmt.Errorf("%s: %s", step.name, tb.failure)
		}
	}
	return nil
}

// wantedSteps are the tables that -only names, separated by commas, or
// every table for "".
func wantedSteps(only string) (map[string]bool, error) {
	wanted := map[string]bool{}
	for _, s := range steps {
		wanted[s.name] = only == ""
	}
	if only == "" {
		return wanted, nil
	}
	for name := range strings.SplitSeq(only, ",") {
		if _, ok := wanted[name]; !ok {
			return nil, fmt.Errorf("-only %q: no table %q", only, name)
		}
		wanted[name] = true
	}
	return wanted, nil
}

// needBuilds says whether a wanted table measures the bundles that the
// builds table makes.
func needBuilds(wanted map[string]bool) bool {
	return slices.ContainsFunc(steps, func(s step) bool { return wanted[s.name] && !s.ownSets })
}
