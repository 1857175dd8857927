package main

import (
	"fmt"
	"path/filepath"
)

// builds times `hcp-rego build` on every set, and `opa build` on what
// `hcp-rego compile` writes for the same set, to show the cost of our own
// work (loading, linting, generating) beside OPA's.
func builds(t *tools, sets map[string]*set) (table, error) {
	tb := table{
		title:  "Builds (`hcp-rego build` against `opa build -b` on our compiled output)",
		header: []string{"set", "hcp-rego build", "peak memory", "opa build", "ratio", "per pack"},
	}
	for _, name := range []string{"g100", "small", "large", "g3000"} {
		s := sets[name]
		s.bundle = filepath.Join(t.work, name+".tar.gz")
		s.dir = filepath.Join(t.work, name+"-compiled")
		ours, err := t.exec(t.hcp, append([]string{"build", "-o", s.bundle}, s.args()...)...)
		if err != nil {
			return tb, err
		}
		if _, err := t.exec(t.hcp, append([]string{"compile", "-o", s.dir}, s.args()...)...); err != nil {
			return tb, err
		}
		theirs, err := t.exec(t.opa, "build", "-b", "-o", filepath.Join(t.work, name+"-opa.tar.gz"), s.dir)
		if err != nil {
			return tb, err
		}
		tb.rows = append(tb.rows, []string{
			s.describe(), seconds(ours.seconds), mib(ours.peakKB), seconds(theirs.seconds),
			ratio(ours.seconds, theirs.seconds), fmt.Sprintf("%.1f ms", 1000*ours.seconds/float64(s.spec.Packs)),
		})
	}
	return tb, nil
}
