package main

import (
	"os"
	"path/filepath"
)

// activation starts OPA on the large bundle, and on a data-only bundle of
// its grant tables for comparison, and reports the time until
// /health?bundles answers and the memory used: the median of the rounds
// (at most three) and the highest peak.
func activation(t *tools, sets map[string]*set) (table, error) {
	tb := table{title: "OPA activation (`opa run --server` until /health?bundles is 200)", header: []string{"bundle", "activation", "peak memory"}}
	large := sets["large"]
	dataOnly, err := t.dataOnlyBundle(large)
	if err != nil {
		return tb, err
	}
	bundles := []string{large.bundle, dataOnly}
	secs := make([][]float64, len(bundles))
	peaks := make([]int64, len(bundles))
	for range min(t.rounds, 3) {
		for i, b := range bundles {
			s, kb, err := t.activate(b)
			if err != nil {
				return tb, err
			}
			secs[i], peaks[i] = append(secs[i], s), max(peaks[i], kb)
		}
	}
	tb.rows = append(tb.rows,
		[]string{"large: " + large.describe(), seconds(median(secs[0])), mib(peaks[0])},
		[]string{"its grant tables alone (data only)", seconds(median(secs[1])), mib(peaks[1])})
	return tb, nil
}

// dataOnlyBundle builds, with opa build, a bundle of the set's grant
// tables and nothing else.
func (t *tools) dataOnlyBundle(s *set) (string, error) {
	dir := filepath.Join(t.work, "data-only", "hcp_grants")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(s.dir, "hcp_grants", "data.json"))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "data.json"), data, 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(t.work, "data-only.tar.gz")
	_, err = t.exec(t.opa, "build", "-o", out, filepath.Join(t.work, "data-only"))
	return out, err
}
