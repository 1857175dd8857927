package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// The layouts the rollout table can measure (-layout): the bundles as
// built now, with the grant tables at the data root hcp_grants; as built
// before, with them at hcp.grants (bundletest.LegacyLayout); r1 as
// before and r2 as now, the one replacement that upgrades a sidecar; or
// r1 as built before the list of sources left the manifest
// (bundletest.ListedManifest) and r2 as now, the replacement that
// upgrades a sidecar from that layout.
const (
	layoutCurrent = "current"
	layoutLegacy  = "legacy"
	layoutUpgrade = "upgrade"
	layoutListed  = "listed"
)

// rolloutSetNames are the rollout table's sets, smallest first: the curve
// divides by the first. The old layout stops at the large set: replacing
// g3000's took tens of minutes a round.
func rolloutSetNames(layout string) []string {
	if layout == layoutCurrent {
		return []string{"g100", "large", "g3000"}
	}
	return []string{"g100", "large"}
}

// loadLead is how long the client asks before a replacement starts, and
// goes on asking once it is done.
const loadLead = 300 * time.Millisecond

// rolloutRound is one sidecar's life in the table: a fresh start on r1,
// a replacement by r2 with no requests, and one back to r1 under load.
type rolloutRound struct {
	fresh, quiet phase
	load         loadedPhase
}

// rolloutSummary is one set's row: the median of each figure over the
// rounds, and every wrong answer of every round.
type rolloutSummary struct {
	c                   *rolloutCase
	fresh, quiet, load  phase
	decisions, p50, p99 float64
	wrong               []string
	peakReset           bool // the peak was reset before every replacement
}

// rollouts measures, for three sizes of pack and grant set, a sidecar
// that polls an HTTP bundle server every second: its fresh start, its
// replacement of one revision by another, and the decisions it serves
// meanwhile, each checked against the embedded evaluator's.
func rollouts(t *tools, sets map[string]*set) (table, error) {
	tb := table{
		title: fmt.Sprintf("Rollout (`opa run --server --config-file`, polling an HTTP bundle server every %d s; layout: %s)", pollSeconds, t.layout),
		header: []string{"set", "fresh start", "CPU", "peak", "replacement", "from swap", "CPU", "peak",
			"CPU ÷ fresh", "under load", "decisions", "p50", "p99", "wrong"},
	}
	var cases []*rolloutCase
	names := rolloutSetNames(t.layout)
	for _, name := range names {
		c, err := t.rolloutCase(sets[name], caseBuild{t.hcp, name, t.layoutOf})
		if err != nil {
			return tb, fmt.Errorf("%s: %w", name, err)
		}
		cases = append(cases, c)
	}
	sums, err := t.interleavedRollouts(cases, names, t.rounds)
	if err != nil {
		return tb, err
	}
	for _, s := range sums {
		tb.rows = append(tb.rows, s.row())
	}
	tb.more = append(tb.more, curve(sums))
	tb.notes = rolloutNotes(t, sums)
	tb.failure = rolloutFailure(sums)
	return tb, nil
}

// interleavedRollouts runs rounds of each case, the cases taking turns so
// that a busy minute of the machine falls on all of them, logs each round
// under the case's label, and sums each case's rounds up.
func (t *tools) interleavedRollouts(cases []*rolloutCase, labels []string, rounds int) ([]rolloutSummary, error) {
	all := make([][]rolloutRound, len(cases))
	for i := range rounds {
		for j, c := range cases {
			r, err := t.rolloutRound(c)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", labels[j], err)
			}
			all[j] = append(all[j], r)
			r.log(labels[j], i)
		}
	}
	var sums []rolloutSummary
	for j, c := range cases {
		sums = append(sums, summarize(c, all[j]))
	}
	return sums, nil
}

// rolloutRound starts a sidecar on r1, replaces r1 by r2, then r2 by r1
// while one client asks for decisions, and measures each step.
func (t *tools) rolloutRound(c *rolloutCase) (rolloutRound, error) {
	var r rolloutRound
	h := newHub()
	defer h.Close()
	h.set(c.revs[0].data)
	s, err := t.startPolling(h.URL)
	if err != nil {
		return r, err
	}
	defer s.stop()
	if err := s.waitRevision(c.revs[0].name); err != nil {
		return r, fmt.Errorf("fresh start: %w", err)
	}
	if r.fresh, err = s.freshPhase(); err != nil {
		return r, err
	}
	if r.quiet, _, _, err = s.replace(h, c.revs[1]); err != nil {
		return r, fmt.Errorf("replace by r2: %w", err)
	}
	stop := make(chan struct{})
	done := askContinuously(s.url+"/v1/data/hcp/authz/decision", c.bodies, stop)
	time.Sleep(loadLead)
	loaded, fetched, active, err := s.replace(h, c.revs[0])
	if err == nil {
		time.Sleep(loadLead)
	}
	close(stop)
	answers := <-done
	if err != nil {
		return r, fmt.Errorf("replace by r1 under load: %w", err)
	}
	r.load = judge(answers, c.revs[1], c.revs[0], fetched, active)
	r.load.phase = loaded
	return r, nil
}

// log prints the round's figures on stderr as it ends, so that a long
// run shows its progress and how much the rounds differ.
func (r rolloutRound) log(set string, i int) {
	fmt.Fprintf(os.Stderr, "%s rollout %s round %d: fresh %.2f s %.2f CPU-s; replacement %.2f s %.2f CPU-s %s; under load %.2f s %.2f CPU-s, %d decisions, %d wrong\n",
		time.Now().Format(time.TimeOnly), set, i+1, r.fresh.wall, r.fresh.cpu, r.quiet.wall, r.quiet.cpu, mib(r.quiet.peakKB),
		r.load.wall, r.load.cpu, r.load.decisions, len(r.load.wrong))
}

// summarize takes the median of each figure over the rounds.
func summarize(c *rolloutCase, rounds []rolloutRound) rolloutSummary {
	med := func(f func(rolloutRound) float64) float64 {
		var xs []float64
		for _, r := range rounds {
			xs = append(xs, f(r))
		}
		return median(xs)
	}
	medPhase := func(p func(rolloutRound) phase) phase {
		return phase{
			wall:       med(func(r rolloutRound) float64 { return p(r).wall }),
			fromSwap:   med(func(r rolloutRound) float64 { return p(r).fromSwap }),
			cpu:        med(func(r rolloutRound) float64 { return p(r).cpu }),
			peakKB:     int64(med(func(r rolloutRound) float64 { return float64(p(r).peakKB) })),
			residentKB: int64(med(func(r rolloutRound) float64 { return float64(p(r).residentKB) })),
			peakReset:  true,
		}
	}
	s := rolloutSummary{c: c, peakReset: true,
		fresh: medPhase(func(r rolloutRound) phase { return r.fresh }),
		quiet: medPhase(func(r rolloutRound) phase { return r.quiet }),
		load:  medPhase(func(r rolloutRound) phase { return r.load.phase }),
	}
	s.decisions = med(func(r rolloutRound) float64 { return float64(r.load.decisions) })
	s.p50 = med(func(r rolloutRound) float64 { return r.load.p50 })
	s.p99 = med(func(r rolloutRound) float64 { return r.load.p99 })
	for _, r := range rounds {
		s.wrong = append(s.wrong, r.load.wrong...)
		s.peakReset = s.peakReset && r.quiet.peakReset && r.load.peakReset
	}
	return s
}

// row is the set's line of the table.
func (s rolloutSummary) row() []string {
	return []string{
		s.c.set.describe(),
		seconds(s.fresh.wall), cpuSeconds(s.fresh.cpu), mib(s.fresh.peakKB),
		seconds(s.quiet.wall), seconds(s.quiet.fromSwap), cpuSeconds(s.quiet.cpu), mib(s.quiet.peakKB),
		ratio(s.quiet.cpu, s.fresh.cpu), seconds(s.load.wall),
		fmt.Sprint(int(s.decisions)), millis(s.p50), millis(s.p99), wrongCount(s.wrong),
	}
}

// wrongCount is how many answers were wrong, in bold when any was.
func wrongCount(wrong []string) string {
	if len(wrong) > 0 {
		return fmt.Sprintf("**%d**", len(wrong))
	}
	return "0"
}

// curve divides each set's replacement by the first set's, and by the
// previous set's, beside the ratio of their sizes: a replacement that
// grows as the set does gives the same ratios.
func curve(sums []rolloutSummary) table {
	tb := table{
		title:  "Rollout growth (replacement with no requests, against the smallest set and the one before)",
		header: []string{"set", "size ÷ first", "CPU ÷ first's", "wall ÷ first's", "size ÷ previous", "CPU ÷ previous", "wall ÷ previous"},
	}
	first := sums[0]
	for i, s := range sums {
		prev := sums[max(i-1, 0)]
		packs := float64(s.c.set.spec.Packs)
		tb.rows = append(tb.rows, []string{
			fmt.Sprintf("%d packs, %d grants", s.c.set.spec.Packs, s.c.set.spec.Grants),
			ratio(packs, float64(first.c.set.spec.Packs)), ratio(s.quiet.cpu, first.quiet.cpu), ratio(s.quiet.wall, first.quiet.wall),
			ratio(packs, float64(prev.c.set.spec.Packs)), ratio(s.quiet.cpu, prev.quiet.cpu), ratio(s.quiet.wall, prev.quiet.wall),
		})
	}
	return tb
}

// rolloutNotes say what each column measures and what the run found.
func rolloutNotes(t *tools, sums []rolloutSummary) []string {
	var inputs []string
	for _, s := range sums {
		inputs = append(inputs, fmt.Sprintf("%s: %d inputs, %d answered otherwise by r2 (%d with another code)",
			s.c.set.name, len(s.c.bodies), s.c.differ, s.c.codesDiffer))
	}
	peak := "the peak is the process's own since the reset (VmHWM, reset by writing 5 to /proc/PID/clear_refs before each replacement, checked to work on this kernel)"
	for _, s := range sums {
		if !s.peakReset {
			peak = "this kernel did not reset VmHWM through /proc/PID/clear_refs: a replacement's peak is the process's peak since it started"
		}
	}
	notes := []string{
		"Fresh start: from the process's start to r1 active (`/v1/data/system/bundles/hcp/manifest/revision`), the first download included. " +
			"Replacement: r1 replaced by r2 with no requests, from the poll that fetched r2 to r2 active; from swap adds the wait for that poll (0 to 1 s) after the server began serving r2. " +
			"Under load: r2 replaced by r1 again (from the fetch) while one client posts decisions to `/v1/data/hcp/authz/decision` one after another; " +
			"decisions, p50 and p99 are those asked between the fetch and r1 active. " +
			"Wrong counts every answer of the client, before, during and after, that is not the old revision's before the fetch, either revision's during it, and the new one's once the new one was seen active: each compared as normalized JSON with the embedded evaluator's answer on the same bundle (package rego), computed beforehand.",
		"CPU is the sidecar's (utime + stime from /proc/PID/stat), as deltas over each step; " + peak + ". " +
			fmt.Sprintf("Each figure is the median over the rounds (%d), a new sidecar each round; the machine is shared, so CPU-seconds are the steadier figure.", t.rounds),
		fmt.Sprintf("r2 is the same packs with as many grants drawn with another seed (largeset seed + %d): it answers some inputs otherwise. "+
			"The inputs are drawn in turn from r1's and r2's grants (the pack and the principal or role a grant names, its command or another): ", r2SeedShift) +
			strings.Join(inputs, "; ") + ".",
	}
	switch t.layout {
	case layoutLegacy:
		notes = append(notes, "Layout legacy: both revisions as built before the grant tables left hcp (data.hcp.grants, bundletest.LegacyLayout): what a rollout cost then. The 3,000-pack set is left out: a replacement of it takes tens of minutes.")
	case layoutUpgrade:
		notes = append(notes, "Layout upgrade: r1 as built before the grant tables left hcp (data.hcp.grants), r2 as now (data.hcp_grants): the replacement is the one-time upgrade, and under load the sidecar goes back to the old layout. The 3,000-pack set is left out.")
	case layoutListed:
		notes = append(notes, "Layout listed: r1 as built before the list of sources left the manifest (metadata.hcp naming every pack and file, bundletest.ListedManifest), r2 as now (the list at data.hcp_grants.base.sources): the replacement is the one-time upgrade, and under load the sidecar goes back to the old layout. The 3,000-pack set is left out.")
	}
	return notes
}

// rolloutFailure says what is wrong with the sums: a wrong answer, or a
// set whose two revisions answer every input alike, so that the check
// proves nothing.
func rolloutFailure(sums []rolloutSummary) string {
	var fails []string
	for _, s := range sums {
		if s.c.differ == 0 {
			fails = append(fails, s.c.set.name+": r1 and r2 answer every input alike")
		}
		for i, w := range s.wrong {
			if i == 3 {
				fails = append(fails, fmt.Sprintf("%s: %d more wrong answers", s.c.set.name, len(s.wrong)-3))
				break
			}
			fails = append(fails, s.c.set.name+": "+w)
		}
	}
	return strings.Join(fails, "; ")
}

func cpuSeconds(s float64) string { return fmt.Sprintf("%.2f CPU-s", s) }

func millis(ns float64) string { return fmt.Sprintf("%.2f ms", ns/1e6) }
