package rego_test

import (
	"context"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// TestConcurrentDecide decides the same inputs from many goroutines at
// once, each in its own order, on one evaluator, and holds every answer to
// the one a sequential run gave (decision and GPARS error, field by
// field). Run it with -race: Decide must be safe for concurrent use.
func TestConcurrentDecide(t *testing.T) {
	m := diffModel(t)
	ev := newPair(t, m, "package hcp.ext\n\nconfirm contains \"late\" if input.args.note == \"late\"\n", reference.Ext{}).rego
	gen := newRandomInputs(m, 17)
	n := 600
	if raceDetector() {
		n = 200
	}
	inputs := make([]any, n)
	want := make([]string, n)
	ctx := context.Background()
	for i := range inputs {
		inputs[i] = gen.next()
		res, err := ev.Decide(ctx, inputs[i])
		if err != nil {
			t.Fatal(err)
		}
		want[i] = jsonText(res)
	}
	workers := 4 * runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range inputs {
				i := (k*7 + w*(n/workers)) % n // each worker starts elsewhere and strides
				res, err := ev.Decide(ctx, inputs[i])
				if err != nil {
					errs <- err.Error()
					return
				}
				if got := jsonText(res); got != want[i] {
					errs <- "input " + jsonText(inputs[i]) + "\n  concurrent: " + got + "\n  sequential: " + want[i]
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// raceDetector reports whether the test binary was built with -race,
// which makes each decision some ten times slower.
func raceDetector() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// benchInputs are well-formed calls that reach every step of the chain.
func benchInputs(b *testing.B) ([]any, *pair) {
	m := diffModel(b)
	p := newPair(b, m, "", reference.Ext{})
	gen := newRandomInputs(m, 23)
	inputs := make([]any, 512)
	for i := range inputs {
		inputs[i] = gen.next()
	}
	return inputs, p
}

// BenchmarkDecideSequential decides one call at a time.
func BenchmarkDecideSequential(b *testing.B) {
	inputs, p := benchInputs(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := p.rego.Decide(ctx, inputs[i%len(inputs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecideParallel decides from GOMAXPROCS goroutines on one
// evaluator: with -cpu 1,2 its ns/op at 2 should be about half the
// sequential one (decisions per second scale with cores).
func BenchmarkDecideParallel(b *testing.B) {
	inputs, p := benchInputs(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := p.rego.Decide(ctx, inputs[i%len(inputs)]); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}
