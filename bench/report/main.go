// Command report measures hcp-rego at scale and prints the table of
// `make bench`: decision latency in a real OPA and in the embedded
// evaluator, as ratios to a one-rule policy measured in the same run;
// build time and memory against `opa build` on the same output, and how
// builds grow; OPA's activation of the large bundle; replay of a
// million logged decisions against it; and its push, pull and rollout
// through a loopback OCI registry. Every figure comes
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
	only := flag.String("only", "", "measure one table only: builds, rest, opa-bench, embedded, activation, replay or publishing")
	flag.Parse()
	if *quick {
		*rounds = 1
	}
	if err := run(context.Background(), *quick, *rounds, *only); err != nil {
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
	{"opa-bench", latencyInOPA},
	{"embedded", latencyEmbedded},
	{"activation", activation},
	{"replay", replayLarge},
	{"publishing", publishing},
}

func run(ctx context.Context, quick bool, rounds int, only string) error {
	if only != "" && !slices.ContainsFunc(steps, func(s step) bool { return s.name == only }) {
		return fmt.Errorf("-only %q: no such table", only)
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
	t.quick = quick
	sizes := standardSizes
	if quick {
		sizes = quickSizes
	}
	sets, err := writeSets(filepath.Join(work, "sets"), sizes)
	if err != nil {
		return err
	}
	for _, step := range steps {
		// The builds make the bundles every other table measures: with
		// -only they run all the same, unprinted.
		if only != "" && step.name != only && step.name != "builds" {
			continue
		}
		tb, err := step.measure(t, sets)
		if err != nil {
			return err
		}
		if only == "" || step.name == only {
			fmt.Println(tb.markdown())
		}
	}
	return nil
}
