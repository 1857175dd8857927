package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
)

// permissionsRounds is how many times a round of each way of asking runs,
// alternating; the table gives medians.
const permissionsRounds = 200

// listingVsDecisions measures, through OPA's REST API on loopback with one
// client, what an operator's console pays to learn what a principal may
// do in a pack of the small set (50 commands and 2 triggers): one listing
// (data.hcp.authz.permissions), against one decision and against a
// decision for each of the pack's commands and triggers, asked in turn.
func listingVsDecisions(t *tools, sets map[string]*set) (table, error) {
	tb := table{
		title:  "What a principal may do: one listing against decisions (REST, one client)",
		header: []string{"query", "requests", "time", "ratio to one decision"},
	}
	small := sets["small"]
	s, err := t.startSidecar("hcp/authz/decision", "--bundle", small.bundle)
	if err != nil {
		return tb, err
	}
	defer s.stop()
	decision, listing, keyed := listingBodies(small.spec)
	listingSidecar := &sidecar{url: s.url, path: "hcp/authz/permissions"}
	var one, list, each []float64
	for range t.rounds * permissionsRounds / 5 {
		l, err := s.latencies(decision, 1, 1)
		if err != nil {
			return tb, err
		}
		one = append(one, l[0])
		if l, err = listingSidecar.latencies(listing, 1, 1); err != nil {
			return tb, err
		}
		list = append(list, l[0])
		start := time.Now()
		for _, body := range keyed {
			if _, err := s.latencies(body, 1, 1); err != nil {
				return tb, err
			}
		}
		each = append(each, float64(time.Since(start).Nanoseconds()))
	}
	base := median(one)
	tb.rows = append(tb.rows,
		[]string{"one decision", "1", micros(base), "1.0x"},
		[]string{"one listing of the pack", "1", micros(median(list)), ratio(median(list), base)},
		[]string{"a decision for each command and trigger", fmt.Sprint(len(keyed)), micros(median(each)), ratio(median(each), base)})
	tb.notes = append(tb.notes, fmt.Sprintf("The input is the bench's allowed call (largeset.BenchInput) without its key, for a pack of %d commands and %d triggers; the listing's target is at most 10x one decision. Medians of %d rounds, each asking one decision, one listing and the decisions in turn.", small.spec.Verbs, small.spec.Triggers, len(one)))
	return tb, nil
}

// listingBodies are the request bodies: the bench's allowed call, the
// same input without its key, and a call of each command and trigger of
// its pack with no args, confirm, apply or allow rules, as the listing's
// entries are.
func listingBodies(spec largeset.Spec) (decision, listing []byte, keyed [][]byte) {
	in := largeset.BenchInput(largeset.Allowed)
	decision, _ = json.Marshal(map[string]any{"input": in})
	base := maps.Clone(in)
	delete(base, "verb_key")
	listing, _ = json.Marshal(map[string]any{"input": base})
	base["args"] = map[string]any{}
	base["access"] = map[string]any{"mode": "ask"}
	var keys [][2]string
	for j := range spec.Verbs {
		keys = append(keys, [2]string{"verb_key", largeset.VerbKey(j)})
	}
	for j := range spec.Triggers {
		keys = append(keys, [2]string{"stimulus", largeset.TriggerKey(j)})
	}
	for _, k := range keys {
		call := maps.Clone(base)
		call[k[0]] = k[1]
		body, _ := json.Marshal(map[string]any{"input": call})
		keyed = append(keyed, body)
	}
	return decision, listing, keyed
}
