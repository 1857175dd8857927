package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
)

// The compare budget (issue 37): 1,000 packs and 100,000 grants a side,
// on this 2-core machine.
const compareWallMax = 30.0 // seconds

// compareLarge times `hcp-rego compare` of the large set against two new
// versions: a pull request (the same set and one more grant file of 1,000
// grants) and an unrelated set (the same packs, every grant drawn with
// another seed, so that nearly every key changes and has examples): the
// median of up to three runs each, and the highest peak memory.
func compareLarge(t *tools, sets map[string]*set) (table, error) {
	tb := table{
		title:  "Compare (`hcp-rego compare OLD_DIR NEW_DIR --format json`, the large set as OLD)",
		header: []string{"NEW", "wall", "peak memory", "keys changed", "budget"},
	}
	s := sets["large"]
	old := filepath.Dir(filepath.Dir(s.files.PackDirs[0]))
	pr, err := pullRequest(t, old, s.spec)
	if err != nil {
		return tb, err
	}
	other := s.spec
	other.Seed++
	unrelated := filepath.Join(t.work, "compare-unrelated")
	if _, err := largeset.Write(unrelated, other); err != nil {
		return tb, err
	}
	for _, v := range []struct{ name, dir string }{
		{fmt.Sprintf("a pull request: %d more grants", prGrants), pr},
		{"unrelated: the same packs, other grants", unrelated},
	} {
		var walls []float64
		var peakKB int64
		var changed, keys int
		for range min(t.rounds, 3) {
			m, err := t.exec(t.hcp, "compare", old, v.dir, "--format", "json")
			if err != nil {
				return tb, err
			}
			var r struct{ Counts struct{ Keys, Same int } }
			if err := json.Unmarshal(m.stdout, &r); err != nil {
				return tb, fmt.Errorf("read compare's output: %w", err)
			}
			walls, peakKB = append(walls, m.seconds), max(peakKB, m.peakKB)
			changed, keys = r.Counts.Keys-r.Counts.Same, r.Counts.Keys
		}
		wall := median(walls)
		verdict := "within"
		if wall > compareWallMax {
			verdict = "OVER"
		}
		tb.rows = append(tb.rows, []string{v.name, seconds(wall), mib(peakKB),
			fmt.Sprintf("%d of %d", changed, keys), fmt.Sprintf("%s (%.0f s)", verdict, compareWallMax)})
	}
	tb.notes = append(tb.notes, fmt.Sprintf("OLD is %s. Median wall of up to 3 runs, highest peak RSS; each run reads both versions, decides every class of every key, and decides each example with both versions.", s.describeFiles()))
	return tb, nil
}

// prGrants is how many grants the pull request adds.
const prGrants = 1000

// pullRequest copies the set at dir and adds a grant file of prGrants
// grants drawn with another seed, and returns the copy's folder.
func pullRequest(t *tools, dir string, spec largeset.Spec) (string, error) {
	pr := filepath.Join(t.work, "compare-pr")
	if err := os.CopyFS(pr, os.DirFS(dir)); err != nil {
		return "", err
	}
	extra := spec
	extra.Grants, extra.GrantFiles, extra.Seed = prGrants, 1, spec.Seed+2
	drawn, err := largeset.Write(filepath.Join(t.work, "compare-extra"), extra)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(drawn.GrantFiles[0])
	if err != nil {
		return "", err
	}
	return pr, os.WriteFile(filepath.Join(pr, "grants", "pull-request.json"), data, 0o644)
}
