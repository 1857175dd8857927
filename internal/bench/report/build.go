package main

import (
	"fmt"
	"path/filepath"
)

// builds times `hcp-rego build` on every set, and `opa build` on what
// `hcp-rego compile` writes for the same set, to show the cost of our own
// work (loading, linting, generating) beside OPA's: the median of up to
// three interleaved runs each (one for the largest set), and the highest
// peak memory.
func builds(t *tools, sets map[string]*set) (table, error) {
	tb := table{
		title:  "Builds (`hcp-rego build` against `opa build -b` on our compiled output)",
		header: []string{"set", "hcp-rego build", "peak memory", "opa build", "ratio", "per pack"},
	}
	for _, name := range []string{"g100", "small", "large", "large1", "g3000"} {
		s := sets[name]
		s.bundle = filepath.Join(t.work, name+".tar.gz")
		s.dir = filepath.Join(t.work, name+"-compiled")
		if _, err := t.exec(t.hcp, append([]string{"compile", "-o", s.dir}, s.args()...)...); err != nil {
			return tb, err
		}
		rounds := min(t.rounds, 3)
		if name == "g3000" {
			rounds = 1
		}
		var ours, theirs []float64
		var peakKB int64
		for range rounds {
			o, err := t.exec(t.hcp, append([]string{"build", "-o", s.bundle}, s.args()...)...)
			if err != nil {
				return tb, err
			}
			th, err := t.exec(t.opa, "build", "-b", "-o", filepath.Join(t.work, name+"-opa.tar.gz"), s.dir)
			if err != nil {
				return tb, err
			}
			ours, theirs, peakKB = append(ours, o.seconds), append(theirs, th.seconds), max(peakKB, o.peakKB)
		}
		o, th := median(ours), median(theirs)
		tb.rows = append(tb.rows, []string{
			s.describeFiles(), seconds(o), mib(peakKB), seconds(th),
			ratio(o, th), fmt.Sprintf("%.1f ms", 1000*o/float64(s.spec.Packs)),
		})
	}
	return tb, nil
}
