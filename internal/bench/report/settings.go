package main

import (
	"fmt"

	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
)

// setting is one way to run a sidecar that the settings table measures.
type setting struct {
	name string
	opts sidecarOpts
}

// sidecarSettings are the settings table's sidecars of one bundle: the
// bench's own (every CPU, errors logged), held to one CPU with one P and
// with two (what Go gives a container limited to one CPU: it rounds a
// cgroup's limit up to at least 2), OPA's default log level with and
// without its access log, and OPA's store optimized for reads.
func sidecarSettings(bundle string) []setting {
	errors := []string{"--log-level", "error", "--bundle", bundle}
	return []setting{
		{"every CPU, --log-level error", sidecarOpts{args: errors}},
		{"1 CPU, GOMAXPROCS=1", sidecarOpts{args: errors, cpus: "0", env: []string{"GOMAXPROCS=1"}}},
		{"1 CPU, GOMAXPROCS=2", sidecarOpts{args: errors, cpus: "0", env: []string{"GOMAXPROCS=2"}}},
		{"--log-level info (OPA's default)", sidecarOpts{args: []string{"--log-level", "info", "--bundle", bundle}}},
		{"--log-level info, access log off (--log-level-request debug)", sidecarOpts{args: []string{"--log-level", "info", "--log-level-request", "debug", "--bundle", bundle}}},
		{"--optimize-store-for-read-speed", sidecarOpts{args: append([]string{"--optimize-store-for-read-speed"}, errors...)}},
	}
}

// settingsCall is the call the settings table asks: the confirm_required
// one, the most work of the bench's three.
const settingsCall = largeset.ConfirmRequired

// sidecarSettingsTable measures what a sidecar operator sets, on the
// bundle of the grants table's million grants: a decision's latency
// through OPA's REST API at one client and four, the settings taking
// turns, and the sidecar's start and memory.
func sidecarSettingsTable(t *tools, _ map[string]*set) (table, error) {
	tb := table{
		title:  "Sidecar settings (`opa run --server` on a million grants, the confirm_required call)",
		header: []string{"setting", "start", "1 client p50", "p99", "4 clients p50", "p99", "resident", "peak"},
	}
	specs := grantSpecs(t.quick, false)
	spec := specs[len(specs)-1]
	s, err := t.writeSet(fmt.Sprintf("idp%d", spec.Grants), spec)
	if err != nil {
		return tb, err
	}
	bundle, err := t.bundleOf(s)
	if err != nil {
		return tb, err
	}
	var targets []restTarget
	defer func() {
		for _, tg := range targets {
			tg.s.stop()
		}
	}()
	settings := sidecarSettings(bundle)
	for _, st := range settings {
		sc, err := t.startSidecarWith("hcp/authz/decision", st.opts)
		if err != nil {
			return tb, fmt.Errorf("%s: %w", st.name, err)
		}
		targets = append(targets, restTarget{st.name, settingsCall, sc})
	}
	clients := []int{1, 4}
	p50s, p99s, err := t.restRounds(targets, clients)
	if err != nil {
		return tb, err
	}
	cell := func(ns []float64, base []float64) string {
		return fmt.Sprintf("%s (%s)", micros(median(ns)), ratio(median(ns), median(base)))
	}
	for i, tg := range targets {
		pid := tg.s.cmd.Process.Pid
		row := []string{tg.name, seconds(tg.s.started)}
		for _, c := range clients {
			row = append(row, cell(p50s[restKey{i, c}], p50s[restKey{0, c}]), cell(p99s[restKey{i, c}], p99s[restKey{0, c}]))
		}
		tb.rows = append(tb.rows, append(row, mib(residentKB(pid)), mib(peakRSS(pid))))
	}
	tb.notes = append(tb.notes,
		fmt.Sprintf("%s, %d grants. Every sidecar serves the same bundle at once; the REST table's method (%d rounds of %d requests a sidecar in blocks that alternate), ratios to the first row at the same concurrency. "+
			"Start is from the process's start to /health?bundles 200; resident (VmRSS) and peak (VmHWM) are read after the rounds. "+
			"1 CPU is `taskset -c 0` (an affinity, where Go's default GOMAXPROCS is already 1; a container's CPU limit is a CFS quota instead, for which Go's default is 2). "+
			"The info rows' output is read and dropped, as a container runtime reads it.",
			describeShape(spec), spec.Grants, t.rounds, restRequests))
	return tb, nil
}
