package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	oparego "github.com/open-policy-agent/opa/v1/rego"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
	"github.com/hcp-rego/hcp-rego/internal/reference"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// onePolicy is the baseline: one rule on the same input document.
const onePolicy = "package bench\n\nallow if input.principal.id == \"u5\"\n"

func (t *tools) writeInputs() error {
	for _, call := range largeset.BenchCalls {
		data, _ := json.Marshal(largeset.BenchInput(call))
		path := filepath.Join(t.work, call+".json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		t.inputs[call] = path
	}
	t.one = filepath.Join(t.work, "one")
	if err := os.MkdirAll(t.one, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(t.one, "one.rego"), []byte(onePolicy), 0o644)
}

// built is one bundle file that a table measures: a set as this tree
// builds it, or as the baseline (-before) did.
type built struct {
	set    *set
	before bool
	file   string
}

func (b built) label() string {
	if b.before {
		return b.set.name + " (before)"
	}
	return b.set.name
}

// builtBundles are the sets' bundles as this tree builds them and, with
// -before, each followed by the baseline's.
func (t *tools) builtBundles(sets ...*set) ([]built, error) {
	var out []built
	for _, s := range sets {
		file, err := t.bundleOf(s)
		if err != nil {
			return nil, err
		}
		out = append(out, built{set: s, file: file})
		if t.before == "" {
			continue
		}
		if file, err = t.beforeBundle(s); err != nil {
			return nil, err
		}
		out = append(out, built{set: s, before: true, file: file})
	}
	return out, nil
}

// latencyInOPA measures decisions with `opa bench` on the built bundles:
// every policy and input once a round, the one-rule baseline too, and the
// median of the rounds, with the allocations a decision.
func latencyInOPA(t *tools, sets map[string]*set) (table, error) {
	tb := table{
		title:  "Decision latency in OPA (`opa bench -b bundle.tar.gz`)",
		header: []string{"policy", "input", "median eval", "ratio", "mean per op", "ratio", "allocations"},
	}
	bundles, err := t.builtBundles(sets["small"], sets["large"])
	if err != nil {
		return tb, err
	}
	type run struct {
		label, call, query string
		target             []string
	}
	runs := []run{{"one rule", largeset.Allowed, "data.bench.allow", []string{"-d", t.one}}}
	for _, b := range bundles {
		for _, call := range largeset.BenchCalls {
			runs = append(runs, run{b.label(), call, hcprego.DecisionQuery, []string{"-b", b.file}})
		}
	}
	medians, perOps, allocs := make([][]float64, len(runs)), make([][]float64, len(runs)), make([][]float64, len(runs))
	for range t.rounds {
		for i, r := range runs {
			res, err := t.opaBench(r.query, t.inputs[r.call], r.target...)
			if err != nil {
				return tb, err
			}
			medians[i], perOps[i], allocs[i] = append(medians[i], res.median), append(perOps[i], res.perOp), append(allocs[i], res.allocs)
		}
	}
	baseMedian, basePerOp := median(medians[0]), median(perOps[0])
	for i, r := range runs {
		m, p := median(medians[i]), median(perOps[i])
		tb.rows = append(tb.rows, []string{r.label, r.call, micros(m), ratio(m, baseMedian), micros(p), ratio(p, basePerOp), fmt.Sprintf("%.0f", median(allocs[i]))})
	}
	tb.notes = append(tb.notes, fmt.Sprintf("Medians of %d interleaved runs; allocations are a decision's, as `opa bench` counts them (MemAllocs ÷ N). %s", t.rounds, setsNote(bundles)))
	return tb, nil
}

// setsNote says what the sets of bundles hold, and what before means.
func setsNote(bundles []built) string {
	var says []string
	before := false
	for _, b := range bundles {
		before = before || b.before
		if !b.before {
			says = append(says, b.set.name+": "+b.set.describe())
		}
	}
	note := strings.Join(says, "; ") + "."
	if before {
		note += " (before): the same set built by the baseline hcp-rego (-before)."
	}
	return note
}

// latencyEmbedded measures decisions with Go benchmarks: the embedded
// evaluator (a prepared query) on each set's bundle, the same one-rule
// baseline, and the Go reference evaluator as the floor.
func latencyEmbedded(t *tools, sets map[string]*set) (table, error) {
	tb := table{title: "Decision latency embedded (Go benchmark, prepared query)", header: []string{"evaluator", "input", "time", "ratio", "allocations"}}
	ctx := context.Background()
	base, err := baselineQuery(ctx)
	if err != nil {
		return tb, err
	}
	input := largeset.BenchInput(largeset.Allowed)
	baseF := func() { _, _ = base.Eval(ctx, oparego.EvalInput(input)) }
	rounds := min(t.rounds, 3)
	var bases, baseAllocs []float64
	var rows [][]string
	for _, name := range []string{"small", "large"} {
		evs, ref, err := evaluators(ctx, t, sets[name])
		if err != nil {
			return tb, err
		}
		for _, call := range largeset.BenchCalls {
			doc := largeset.BenchInput(call)
			fs := []func(){baseF}
			for _, ev := range evs {
				if err := checkDecisions(ctx, base, ev.ev, ref, input, doc, call); err != nil {
					return tb, fmt.Errorf("%s: %w", ev.label, err)
				}
				fs = append(fs, func() { _, _ = ev.ev.Decide(ctx, doc) })
			}
			fs = append(fs, func() { ref.Decide(doc, reference.Ext{}) })
			ns, allocs := medianNsPerOp(rounds, fs...)
			bases, baseAllocs = append(bases, ns[0]), append(baseAllocs, allocs[0])
			for i, ev := range evs {
				rows = append(rows, []string{ev.label + " (embedded OPA)", call, micros(ns[i+1]), ratio(ns[i+1], ns[0]), fmt.Sprintf("%.0f", allocs[i+1])})
			}
			last := len(ns) - 1
			rows = append(rows, []string{name + " (Go reference, the floor)", call, micros(ns[last]), ratio(ns[last], ns[0]), fmt.Sprintf("%.0f", allocs[last])})
		}
	}
	tb.rows = append([][]string{{"one rule", largeset.Allowed, micros(median(bases)), "1.0x", fmt.Sprintf("%.0f", median(baseAllocs))}}, rows...)
	tb.notes = append(tb.notes, fmt.Sprintf("Each ratio is to the one-rule policy measured beside it: medians of %d interleaved runs; allocations are a decision's (testing.Benchmark).", rounds))
	if t.before != "" {
		tb.notes = append(tb.notes, "(before): the set's bundle as the baseline hcp-rego (-before) builds it, read by bundles.Read and decided by this tree's evaluator (package rego), which runs the bundle's own modules.")
	}
	return tb, nil
}

// checkDecisions evaluates each benchmarked query once and checks what it
// decides, so that the timed loops, which drop their results, time the
// decision and not an error's short path: the baseline allows baseInput,
// and both evaluators give doc the code it is built for.
func checkDecisions(ctx context.Context, base oparego.PreparedEvalQuery, ev *hcprego.Evaluator, ref *reference.Evaluator, baseInput, doc map[string]any, want string) error {
	rs, err := base.Eval(ctx, oparego.EvalInput(baseInput))
	if err != nil || !rs.Allowed() {
		return fmt.Errorf("the one-rule baseline does not allow its input (%v)", err)
	}
	res, err := ev.Decide(ctx, doc)
	if err != nil {
		return err
	}
	if got := res.Decision.Code; got != want {
		return fmt.Errorf("the embedded evaluator decides %v, want %s", got, want)
	}
	if got := ref.Decide(doc, reference.Ext{})["code"]; got != want {
		return fmt.Errorf("the Go reference decides %v, want %s", got, want)
	}
	return nil
}

// evaluator is an embedded evaluator of one of a set's bundles.
type evaluator struct {
	label string
	ev    *hcprego.Evaluator
}

// evaluators prepares the embedded evaluator of a set's bundle and, with
// -before, of the baseline's bundle of it, each read from its file as
// `eval --bundle` reads one, and the Go reference for the set.
func evaluators(ctx context.Context, t *tools, s *set) ([]evaluator, *reference.Evaluator, error) {
	m, err := compile.Checked(s.files.PackDirs, s.files.GrantFiles)
	if err != nil {
		return nil, nil, err
	}
	files, err := t.builtBundles(s)
	if err != nil {
		return nil, nil, err
	}
	var evs []evaluator
	for _, b := range files {
		read, err := bundles.Read(b.file, nil, bundles.DefaultLimits)
		if err != nil {
			return nil, nil, err
		}
		ev, err := hcprego.New(ctx, read)
		if err != nil {
			return nil, nil, err
		}
		evs = append(evs, evaluator{b.label(), ev})
	}
	return evs, reference.New(m.Packs(), m.Grants()), nil
}

func baselineQuery(ctx context.Context) (oparego.PreparedEvalQuery, error) {
	return oparego.New(
		oparego.Query("data.bench.allow"),
		oparego.Module("one.rego", onePolicy),
		oparego.SetRegoVersion(ast.RegoV1),
	).PrepareForEval(ctx)
}

// nsPerOp runs f as a Go benchmark and returns its time and its
// allocations an operation.
func nsPerOp(f func()) (float64, float64) {
	r := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f()
		}
	})
	return float64(r.NsPerOp()), float64(r.AllocsPerOp())
}

// medianNsPerOp runs each of fs as a Go benchmark once a round, for the
// given rounds, and returns each one's median time and allocations an
// operation.
func medianNsPerOp(rounds int, fs ...func()) (ns, allocs []float64) {
	times, counts := make([][]float64, len(fs)), make([][]float64, len(fs))
	for range rounds {
		for i, f := range fs {
			t, a := nsPerOp(f)
			times[i], counts[i] = append(times[i], t), append(counts[i], a)
		}
	}
	for i := range fs {
		ns, allocs = append(ns, median(times[i])), append(allocs, median(counts[i]))
	}
	return ns, allocs
}
