package main

import (
	"fmt"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
)

// activationPacks is the activation table's second set: as many grants as
// the large set over ten times the packs, where a bundle's size is its
// packs' rows.
var activationPacks = map[bool]largeset.Spec{
	false: {Packs: 10_000, Verbs: 50, Triggers: 2, Grants: 100_000, GrantFiles: 10, Seed: 1},
	true:  {Packs: 1000, Verbs: 50, Triggers: 2, Grants: 10_000, GrantFiles: 2, Seed: 1}, // -quick
}

// activation measures a sidecar's fresh start and its replacement of a
// revision on the large set and on one of ten times its packs, built by
// this tree and, with -before, by the baseline: the rollout table's
// rounds, interleaved, every answer under load checked.
func activation(t *tools, sets map[string]*set) (table, error) {
	tb := table{
		title: fmt.Sprintf("Sidecar activation and replacement (`opa run --server`, polling an HTTP bundle server every %d s)", pollSeconds),
		header: []string{"set", "fresh start", "CPU", "peak", "resident", "replacement", "CPU", "peak",
			"CPU ÷ fresh", "wrong"},
	}
	many, err := t.writeSet("p10000", activationPacks[t.quick])
	if err != nil {
		return tb, err
	}
	var cases []*rolloutCase
	var labels []string
	for _, s := range []*set{sets["large"], many} {
		builds := []caseBuild{{t.hcp, s.name, nil}}
		if t.before != "" {
			builds = append(builds, caseBuild{t.before, s.name + "-before", nil})
		}
		for _, how := range builds {
			c, err := t.rolloutCase(s, how)
			if err != nil {
				return tb, fmt.Errorf("%s: %w", how.tag, err)
			}
			cases, labels = append(cases, c), append(labels, how.tag)
		}
	}
	sums, err := t.interleavedRollouts(cases, labels, t.rounds)
	if err != nil {
		return tb, err
	}
	for i, s := range sums {
		label := s.c.set.describe()
		if strings.HasSuffix(labels[i], "-before") {
			label += " (before)"
		}
		tb.rows = append(tb.rows, []string{label,
			seconds(s.fresh.wall), cpuSeconds(s.fresh.cpu), mib(s.fresh.peakKB), mib(s.fresh.residentKB),
			seconds(s.quiet.wall), cpuSeconds(s.quiet.cpu), mib(s.quiet.peakKB),
			ratio(s.quiet.cpu, s.fresh.cpu), wrongCount(s.wrong)})
	}
	tb.notes = append(tb.notes, fmt.Sprintf("The rollout table's rounds (below; its notes say what each column measures), %d a case, the cases taking turns; resident is the sidecar's VmRSS once r1 is active.", t.rounds))
	if t.before != "" {
		tb.notes = append(tb.notes, "(before): both revisions built by the baseline hcp-rego (-before); their answers are checked against this tree's evaluator on the same bundles.")
	}
	tb.failure = rolloutFailure(sums)
	return tb, nil
}
