// Command report measures hcp-rego at scale and prints the table of
// `make bench`: decision latency in a real OPA and in the embedded
// evaluator, as ratios to a one-rule policy measured in the same run;
// build time and memory against `opa build` on the same output, and how
// builds grow; OPA's activation of the large bundle; and its push, pull
// and rollout through a loopback OCI registry. Every figure comes
// from this run on this machine: the median of several runs, interleaved
// so that a noisy moment of a shared machine falls on every policy alike.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	quick := flag.Bool("quick", false, "smaller sets and shorter runs, to try the tool")
	rounds := flag.Int("rounds", 5, "runs of each measurement, interleaved; the tables give their median")
	flag.Parse()
	if *quick {
		*rounds = 1
	}
	if err := run(context.Background(), *quick, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, quick bool, rounds int) error {
	work, err := os.MkdirTemp("", "hcp-rego-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	t, err := newTools(ctx, work, rounds)
	if err != nil {
		return err
	}
	sizes := standardSizes
	if quick {
		sizes = quickSizes
	}
	sets, err := writeSets(filepath.Join(work, "sets"), sizes)
	if err != nil {
		return err
	}
	for _, step := range []func(*tools, map[string]*set) (table, error){builds, latencyInOPA, latencyEmbedded, activation, publishing} {
		tb, err := step(t, sets)
		if err != nil {
			return err
		}
		fmt.Println(tb.markdown())
	}
	return nil
}
