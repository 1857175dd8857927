package rego_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// agreeAll decides every input with both implementations on parallel
// workers and fails on the first disagreements, showing each input.
func agreeAll(t *testing.T, p *pair, inputs <-chan any) int {
	t.Helper()
	var count, failures atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for in := range inputs {
				count.Add(1)
				if _, diff := p.compare(in); diff != "" && failures.Add(1) <= 5 {
					t.Errorf("Rego and the Go reference disagree on input %s:\n%s", jsonText(in), diff)
				}
			}
		}()
	}
	wg.Wait()
	if n := failures.Load(); n > 5 {
		t.Errorf("... %d disagreements in all", n)
	}
	return int(count.Load())
}

// TestDifferentialGrid compares the two implementations over every
// combination of row (operation × land × confirm × connect, commands and
// triggers, and unknown keys) × grant shape (principal) × mode × confirm/
// apply × allow-rule shape × land facts present, absent and wrong.
func TestDifferentialGrid(t *testing.T) {
	m := diffModel(t)
	p := newPair(t, m, "", reference.Ext{})
	inputs := make(chan any, 256)
	grid := newSample(1)
	go func() {
		defer close(inputs)
		for _, c := range calls(m) {
			for _, pr := range principals {
				facts := landFacts(pr)
				for _, mode := range modes {
					for _, ap := range approvals[:3] {
						for _, allow := range allowShapes(c.pack, c.key) {
							for _, f := range facts[:3] {
								if grid.keep() {
									inputs <- reparse(gridInput(c, pr, mode, ap, allow, f))
								}
							}
						}
					}
				}
				for _, f := range facts {
					if grid.keep() {
						inputs <- reparse(gridInput(c, pr, nil, nil, nil, f))
					}
				}
			}
		}
	}()
	n := agreeAll(t, p, inputs)
	t.Logf("%d inputs agree", n)
}

// TestDifferentialRandom compares the two on 100,000 random inputs, many of
// them malformed (a seventh under -short).
func TestDifferentialRandom(t *testing.T) {
	m := diffModel(t)
	p := newPair(t, m, "", reference.Ext{})
	n := scaled(100_000)
	gen := newRandomInputs(m, 1)
	inputs := make(chan any, 256)
	go func() {
		defer close(inputs)
		for range n {
			inputs <- gen.next()
		}
	}()
	if got := agreeAll(t, p, inputs); got != n {
		t.Fatalf("compared %d inputs, want %d", got, n)
	}
}

// extLayers are runtime layers (docs/decisions.md item 6) as a Rego module
// and as the reference sees the same values.
var extLayers = []struct {
	name   string
	module string
	ext    reference.Ext
}{
	{"deny set", "package hcp.ext\n\ndeny contains \"maintenance\"\n\ndeny contains \"b-second\"\n", reference.Ext{Deny: []any{"maintenance", "b-second"}}},
	{"deny true", "package hcp.ext\n\ndeny := true\n", reference.Ext{Deny: true}},
	{"deny empty", "package hcp.ext\n\ndeny := set()\n", reference.Ext{Deny: []any{}}},
	{"deny false", "package hcp.ext\n\ndeny := false\n", reference.Ext{Deny: false}},
	{"confirm set", "package hcp.ext\n\nconfirm contains \"new payee\"\n", reference.Ext{Confirm: []any{"new payee"}}},
	{"confirm object", "package hcp.ext\n\nconfirm := {\"z\": false, \"a\": 1}\n", reference.Ext{Confirm: map[string]any{"z": false, "a": 1}}},
	{"confirm array with numbers", "package hcp.ext\n\nconfirm := [\"x\", 3, \"x\"]\n", reference.Ext{Confirm: []any{"x", 3, "x"}}},
	{"deny numbers OPA calls equal", "package hcp.ext\n\ndeny := [12.500000000000000010, 12.50]\n", reference.Ext{Deny: []any{json.Number("12.500000000000000010"), json.Number("12.50")}}},
	{"confirm numbers OPA calls equal", "package hcp.ext\n\nconfirm := [12.50, 12.500000000000000010]\n", reference.Ext{Confirm: []any{json.Number("12.50"), json.Number("12.500000000000000010")}}},
	{"both", "package hcp.ext\n\ndeny := [\"stop\"]\n\nconfirm := [\"ask\"]\n", reference.Ext{Deny: []any{"stop"}, Confirm: []any{"ask"}}},
	{"rules that read the call", callLayer, reference.Ext{Rules: callRules}},
}

// TestDifferentialRuntimeLayer compares the two under each runtime layer.
func TestDifferentialRuntimeLayer(t *testing.T) {
	m := diffModel(t)
	for _, layer := range extLayers {
		t.Run(layer.name, func(t *testing.T) {
			p := newPair(t, m, layer.module, layer.ext)
			gen := newRandomInputs(m, 7)
			inputs := make(chan any, 256)
			go func() {
				defer close(inputs)
				for range scaled(3000) {
					inputs <- gen.next()
				}
			}()
			agreeAll(t, p, inputs)
		})
	}
}

func jsonText(v any) string {
	data, err := jsonMarshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

var _ = context.Background
