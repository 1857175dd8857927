package rego_test

import "testing"

// shortShare is how much smaller -short makes each grid walk and random
// run: one input in shortShare is kept. It is prime, so that a stride over
// a grid does not meet the same value of a dimension every time. `go test
// -short` is the inner loop; `make test` runs every suite whole.
const shortShare = 11

// scaled is n, or n/shortShare (at least 1) under -short.
func scaled(n int) int {
	if testing.Short() {
		return max(1, n/shortShare)
	}
	return n
}

// sample keeps one input in every while a grid is walked: one in
// every*shortShare under -short.
type sample struct{ every, n int }

func newSample(every int) *sample {
	if testing.Short() {
		every *= shortShare
	}
	return &sample{every: every}
}

// keep counts an input and reports whether it is one to check.
func (s *sample) keep() bool {
	s.n++
	return s.n%s.every == 0
}
