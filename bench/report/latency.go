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

	"github.com/hcp-rego/hcp-rego/bench/largeset"
	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/reference"
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

// latencyInOPA measures decisions with `opa bench` on the built bundles.
func latencyInOPA(t *tools, sets map[string]*set) (table, error) {
	tb := table{
		title:  "Decision latency in OPA (`opa bench -b bundle.tar.gz`)",
		header: []string{"policy", "input", "median eval", "ratio", "mean per op", "ratio"},
	}
	baseMedian, basePerOp, err := t.opaBench("data.bench.allow", t.inputs["allowed"], "-d", t.one)
	if err != nil {
		return tb, err
	}
	tb.rows = append(tb.rows, []string{"one rule", "allowed", micros(baseMedian), "1.0x", micros(basePerOp), "1.0x"})
	medians := map[string]float64{}
	for _, name := range []string{"small", "large"} {
		for _, in := range []string{"allowed", "confirm"} {
			median, perOp, err := t.opaBench(hcprego.DecisionQuery, t.inputs[in], "-b", sets[name].bundle)
			if err != nil {
				return tb, err
			}
			medians[name+in] = median
			tb.rows = append(tb.rows, []string{name + ": " + sets[name].describe(), in, micros(median), ratio(median, baseMedian), micros(perOp), ratio(perOp, basePerOp)})
		}
	}
	tb.notes = append(tb.notes, fmt.Sprintf("Large set against small: %s allowed, %s confirm_required (median eval).",
		ratio(medians["largeallowed"], medians["smallallowed"]), ratio(medians["largeconfirm"], medians["smallconfirm"])))
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
	baseNs := nsPerOp(func() { _, _ = base.Eval(ctx, oparego.EvalInput(input)) })
	tb.rows = append(tb.rows, []string{"one rule", "allowed", micros(baseNs), "1.0x"})
	for _, name := range []string{"small", "large"} {
		m, err := compile.Checked(sets[name].files.PackDirs, sets[name].files.GrantFiles)
		if err != nil {
			return tb, err
		}
		b, err := bundles.Assemble(m, "")
		if err != nil {
			return tb, err
		}
		ev, err := hcprego.New(ctx, b)
		if err != nil {
			return tb, err
		}
		ref := reference.New(m)
		for _, in := range []string{"allowed", "confirm"} {
			doc := largeset.BenchInput(in == "confirm")
			ns := nsPerOp(func() { _, _ = ev.Decide(ctx, doc) })
			refNs := nsPerOp(func() { ref.Decide(doc, reference.Ext{}) })
			tb.rows = append(tb.rows,
				[]string{name + " (embedded OPA)", in, micros(ns), ratio(ns, baseNs)},
				[]string{name + " (Go reference, the floor)", in, micros(refNs), ratio(refNs, baseNs)})
		}
	}
	return tb, nil
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
