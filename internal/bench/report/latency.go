package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	oparego "github.com/open-policy-agent/opa/v1/rego"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
	"github.com/hcp-rego/hcp-rego/internal/reference"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// onePolicy is the baseline: one rule on the same input document.
const onePolicy = "package bench\n\nallow if input.principal.id == \"u5\"\n"

func (t *tools) writeInputs() error {
	for name, confirm := range map[string]bool{"allowed": false, "confirm": true} {
		data, _ := json.Marshal(largeset.BenchInput(confirm))
		path := filepath.Join(t.work, name+".json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		t.inputs[name] = path
	}
	t.one = filepath.Join(t.work, "one")
	if err := os.MkdirAll(t.one, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(t.one, "one.rego"), []byte(onePolicy), 0o644)
}

// latencyInOPA measures decisions with `opa bench` on the built bundles:
// every policy and input once a round, the one-rule baseline too, and the
// median of the rounds.
func latencyInOPA(t *tools, sets map[string]*set) (table, error) {
	tb := table{
		title:  "Decision latency in OPA (`opa bench -b bundle.tar.gz`)",
		header: []string{"policy", "input", "median eval", "ratio", "mean per op", "ratio"},
	}
	type run struct{ name, input, query string }
	runs := []run{{"one rule", "allowed", "data.bench.allow"}}
	for _, name := range []string{"small", "large"} {
		for _, in := range []string{"allowed", "confirm"} {
			runs = append(runs, run{name, in, hcprego.DecisionQuery})
		}
	}
	medians, perOps := map[run][]float64{}, map[run][]float64{}
	for range t.rounds {
		for _, r := range runs {
			target := []string{"-d", t.one}
			if r.name != "one rule" {
				target = []string{"-b", sets[r.name].bundle}
			}
			median, perOp, err := t.opaBench(r.query, t.inputs[r.input], target...)
			if err != nil {
				return tb, err
			}
			medians[r] = append(medians[r], median)
			perOps[r] = append(perOps[r], perOp)
		}
	}
	baseMedian, basePerOp := median(medians[runs[0]]), median(perOps[runs[0]])
	of := map[string]float64{}
	for _, r := range runs {
		m, p := median(medians[r]), median(perOps[r])
		of[r.name+r.input] = m
		label := r.name
		if s := sets[r.name]; s != nil {
			label += ": " + s.describe()
		}
		tb.rows = append(tb.rows, []string{label, r.input, micros(m), ratio(m, baseMedian), micros(p), ratio(p, basePerOp)})
	}
	tb.notes = append(tb.notes,
		fmt.Sprintf("Medians of %d interleaved runs. Large set against small: %s allowed, %s confirm_required (median eval).",
			t.rounds, ratio(of["largeallowed"], of["smallallowed"]), ratio(of["largeconfirm"], of["smallconfirm"])))
	return tb, nil
}

// latencyEmbedded measures decisions with Go benchmarks: the embedded
// evaluator (a prepared query), the same one-rule baseline, and the Go
// reference evaluator as the floor.
func latencyEmbedded(t *tools, sets map[string]*set) (table, error) {
	tb := table{title: "Decision latency embedded (Go benchmark, prepared query)", header: []string{"evaluator", "input", "time", "ratio"}}
	ctx := context.Background()
	base, err := baselineQuery(ctx)
	if err != nil {
		return tb, err
	}
	input := largeset.BenchInput(false)
	baseF := func() { _, _ = base.Eval(ctx, oparego.EvalInput(input)) }
	rounds := min(t.rounds, 3)
	var bases []float64
	var rows [][]string
	for _, name := range []string{"small", "large"} {
		ev, ref, err := evaluators(ctx, sets[name])
		if err != nil {
			return tb, err
		}
		for _, in := range []string{"allowed", "confirm"} {
			doc := largeset.BenchInput(in == "confirm")
			if err := checkDecisions(ctx, base, ev, ref, input, doc, in == "confirm"); err != nil {
				return tb, fmt.Errorf("%s set: %w", name, err)
			}
			ns := medianNsPerOp(rounds, baseF,
				func() { _, _ = ev.Decide(ctx, doc) },
				func() { ref.Decide(doc, reference.Ext{}) })
			bases = append(bases, ns[0])
			rows = append(rows,
				[]string{name + " (embedded OPA)", in, micros(ns[1]), ratio(ns[1], ns[0])},
				[]string{name + " (Go reference, the floor)", in, micros(ns[2]), ratio(ns[2], ns[0])})
		}
	}
	tb.rows = append([][]string{{"one rule", "allowed", micros(median(bases)), "1.0x"}}, rows...)
	tb.notes = append(tb.notes, fmt.Sprintf("Each ratio is to the one-rule policy measured beside it: medians of %d interleaved runs.", rounds))
	return tb, nil
}

// checkDecisions evaluates each benchmarked query once and checks what it
// decides, so that the timed loops, which drop their results, time the
// decision and not an error's short path: the baseline allows baseInput,
// and both evaluators give doc the code it is built for.
func checkDecisions(ctx context.Context, base oparego.PreparedEvalQuery, ev *hcprego.Evaluator, ref *reference.Evaluator, baseInput, doc map[string]any, confirm bool) error {
	rs, err := base.Eval(ctx, oparego.EvalInput(baseInput))
	if err != nil || !rs.Allowed() {
		return fmt.Errorf("the one-rule baseline does not allow its input (%v)", err)
	}
	want := "allowed"
	if confirm {
		want = "confirm_required"
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

// evaluators prepares the embedded evaluator and the Go reference for a set.
func evaluators(ctx context.Context, s *set) (*hcprego.Evaluator, *reference.Evaluator, error) {
	m, err := compile.Checked(s.files.PackDirs, s.files.GrantFiles)
	if err != nil {
		return nil, nil, err
	}
	b, err := compile.Compile(m, "")
	if err != nil {
		return nil, nil, err
	}
	ev, err := hcprego.New(ctx, b)
	if err != nil {
		return nil, nil, err
	}
	return ev, reference.New(m.Packs(), m.Grants()), nil
}

func baselineQuery(ctx context.Context) (oparego.PreparedEvalQuery, error) {
	return oparego.New(
		oparego.Query("data.bench.allow"),
		oparego.Module("one.rego", onePolicy),
		oparego.SetRegoVersion(ast.RegoV1),
	).PrepareForEval(ctx)
}

// nsPerOp runs f as a Go benchmark and returns its time an operation.
func nsPerOp(f func()) float64 {
	r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			f()
		}
	})
	return float64(r.NsPerOp())
}

// medianNsPerOp runs each of fs as a Go benchmark once a round, for the
// given rounds, and returns each one's median time an operation.
func medianNsPerOp(rounds int, fs ...func()) []float64 {
	times := make([][]float64, len(fs))
	for range rounds {
		for i, f := range fs {
			times[i] = append(times[i], nsPerOp(f))
		}
	}
	out := make([]float64, len(fs))
	for i := range fs {
		out[i] = median(times[i])
	}
	return out
}
