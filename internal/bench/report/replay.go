package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
)

// The replay budget (issue 18): a log of a million events of at least
// 50,000 distinct inputs, against the large set, on this 2-core machine.
const (
	replayEvents   = 1_000_000
	replayDistinct = 50_000
	replayWallMax  = 30.0 // seconds
	replayRSSMaxMB = 500
)

// replayLarge times `hcp-rego replay --bundle` on the large set's bundle
// over a generated gzip'd console decision log, and gives its peak
// memory, the events read a second and the distinct inputs decided a
// second, against the budget: the median of up to three runs.
func replayLarge(t *tools, sets map[string]*set) (table, error) {
	tb := table{
		title:  "Impact analysis (`hcp-rego replay --bundle` over a gzip'd console decision log)",
		header: []string{"log", "wall", "peak memory", "events/s", "distinct inputs decided/s", "budget"},
	}
	s := sets["large"]
	events, distinct := replayEvents, replayDistinct
	if t.quick {
		events, distinct = replayEvents/10, replayDistinct/10
	}
	log := filepath.Join(t.work, "decisions.log.gz")
	spec := largeset.LogSpec{Events: events, Distinct: distinct, Packs: s.spec.Packs, Verbs: s.spec.Verbs}
	if err := largeset.WriteDecisionLog(log, spec); err != nil {
		return tb, fmt.Errorf("write the decision log: %w", err)
	}
	var walls []float64
	var peakKB int64
	for range min(t.rounds, 3) {
		m, err := t.exec(t.hcp, "replay", "--bundle", s.bundle, log, "--format", "json")
		if err != nil {
			return tb, err
		}
		var r struct{ Replayed int }
		if err := json.Unmarshal(m.stdout, &r); err != nil || r.Replayed != events {
			return tb, fmt.Errorf("replay reports %d replayed, want %d (%v)", r.Replayed, events, err)
		}
		walls, peakKB = append(walls, m.seconds), max(peakKB, m.peakKB)
	}
	wall := median(walls)
	verdict := "within"
	if wall > replayWallMax || peakKB/1024 > replayRSSMaxMB {
		verdict = "OVER"
	}
	tb.rows = append(tb.rows, []string{
		fmt.Sprintf("%d events, %d distinct inputs; %s", events, distinct, s.describe()),
		seconds(wall), mib(peakKB),
		fmt.Sprintf("%.0f", float64(events)/wall), fmt.Sprintf("%.0f", float64(distinct)/wall),
		fmt.Sprintf("%s (%.0f s, %d MB)", verdict, replayWallMax, replayRSSMaxMB),
	})
	tb.notes = append(tb.notes, fmt.Sprintf("Median wall of %d runs, highest peak RSS. The rate of distinct inputs is over the whole run: reading, deciding and grouping.", len(walls)))
	return tb, nil
}
