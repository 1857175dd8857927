// Command report measures hcp-rego at scale and prints the table of
// `make bench`: decision latency in a real OPA and in the embedded
// evaluator, as ratios to a one-rule policy measured in the same run;
// a listing of what a principal may do against decisions one by one;
// build time and memory against `opa build` on the same output, and how
// builds grow; OPA's activation of the large bundle; replay of a
// million logged decisions against it; compare of two versions of it;
// and its push, pull and rollout
// through a loopback OCI registry; and rollouts of three sizes to a
// sidecar polling an HTTP bundle server, checked decision by decision
// while it replaces a revision. Every figure comes
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
)

func main() {
	quick := flag.Bool("quick", false, "smaller sets and shorter runs, to try the tool")
	rounds := flag.Int("rounds", 5, "runs of each measurement, interleaved; the tables give their median")
	only := flag.String("only", "", "measure one table only: builds, rest, permissions, opa-bench, embedded, activation, replay, compare, publishing or rollout")
	layout := flag.String("layout", layoutCurrent, "the rollout table's bundles: "+layoutCurrent+"; "+layoutLegacy+", as built before the grant tables left hcp (the old rollout cost); "+layoutUpgrade+", r1 as before and r2 as now (the one-time cost of the upgrade); "+layoutListed+", r1 with the manifest listing every source file, as built before the list moved to data, and r2 as now")
	flag.Parse()
	if *quick {
		*rounds = 1
	}
	if err := run(context.Background(), *quick, *rounds, *only, *layout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// step is one table of the report, by the name -only takes.
type step struct {
	name    string
	measure func(*tools, map[string]*set) (table, error)
}

// steps are the report's tables, in order.
var steps = []step{
	{"builds", builds},
	{"rest", latencyREST},
	{"permissions", listingVsDecisions},
	{"opa-bench", latencyInOPA},
	{"embedded", latencyEmbedded},
	{"activation", activation},
	{"replay", replayLarge},
	{"compare", compareLarge},
	{"publishing", publishing},
	{"rollout", rollouts},
	{"shards", shards},
}

func run(ctx context.Context, quick bool, rounds int, only, layout string) error {
	if only != "" && !slices.ContainsFunc(steps, func(s step) bool { return s.name == only }) {
		return fmt.Errorf("-only %q: no such table", only)
	}
	if !slices.Contains([]string{layoutCurrent, layoutLegacy, layoutUpgrade, layoutListed}, layout) {
		return fmt.Errorf("-layout %q: want %s, %s, %s or %s", layout, layoutCurrent, layoutLegacy, layoutUpgrade, layoutListed)
	}
	work, err := os.MkdirTemp("", "hcp-rego-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	t, err := newTools(ctx, work, rounds)
	if err != nil {
		return err
	}
	t.quick, t.layout = quick, layout
	sizes := standardSizes
	if quick {
		sizes = quickSizes
	}
	sets, err := writeSets(filepath.Join(work, "sets"), sizes)
	if err != nil {
		return err
	}
	for _, step := range steps {
		// The builds make the bundles every other table measures but
		// compare's and shards': with -only they run all the same, unprinted.
		if only != "" && step.name != only && (step.name != "builds" || only == "compare" || only == "shards") {
			continue
		}
		tb, err := step.measure(t, sets)
		if err != nil {
			return err
		}
		if only == "" || step.name == only {
			fmt.Println(tb.markdown())
		}
		if tb.failure != "" {
			return fmt.Errorf("%s: %s", step.name, tb.failure)
		}
	}
	return nil
}
