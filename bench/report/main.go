// Command report measures hcp-rego at scale and prints the table of
// `make bench`: decision latency in a real OPA and in the embedded
// evaluator, as ratios to a one-rule policy measured in the same run;
// build time and memory against `opa build` on the same output, and how
// builds grow; and OPA's activation of the large bundle. Every figure comes
// from this run on this machine.
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
	flag.Parse()
	if err := run(context.Background(), *quick); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, quick bool) error {
	work, err := os.MkdirTemp("", "hcp-rego-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	t, err := newTools(ctx, work)
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
	for _, step := range []func(*tools, map[string]*set) (table, error){builds, latencyInOPA, latencyEmbedded, activation} {
		tb, err := step(t, sets)
		if err != nil {
			return err
		}
		fmt.Println(tb.markdown())
	}
	return nil
}
