package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
)

// grantSpecs are the grants table's sets, smallest first: the IdP shape
// (largeset.IdP) over 1,000 packs of 50 commands and 10,000 tenants,
// 100,000 grants a file; 3,000,000 only with -huge.
func grantSpecs(quick, huge bool) []largeset.Spec {
	packs, tenants, sizes := 1000, 10_000, []int{100_000, 300_000, 1_000_000}
	if huge {
		sizes = append(sizes, 3_000_000)
	}
	if quick {
		packs, tenants, sizes = 100, 1000, []int{10_000, 30_000, 100_000}
	}
	var specs []largeset.Spec
	for _, n := range sizes {
		specs = append(specs, largeset.Spec{Packs: packs, Verbs: 50, Triggers: 2, Grants: n, GrantFiles: max(1, n/100_000),
			Seed: 1, Shape: largeset.IdP, Tenants: tenants})
	}
	return specs
}

// beforeGrantsLimit is the largest set the baseline builds in the grants
// table: its build of a million grants peaked near 4 GB.
const beforeGrantsLimit = 1_000_000

// grantPoint is what the grants table measured of one set as one hcp-rego
// builds it.
type grantPoint struct {
	set     *set
	before  bool
	wall    []float64 // build, s
	peakKB  int64     // the highest build peak
	bytes   int64     // the bundle file
	rollout rolloutSummary
}

// grantCurve measures the grants table: for each size, the build's wall
// and peak, the bundle's bytes, a sidecar's fresh start (wall, CPU,
// resident memory) and its replacement of a revision by another of as
// many grants, and decisions through OPA's REST API, beside the small
// set's, with the growth from one size to the next; with -before, the
// baseline's build and sidecar too, up to a million grants.
func grantCurve(t *tools, sets map[string]*set) (table, error) {
	tb := table{
		title: "A million grants (the IdP shape: 90% principal grants on one command, 10% role grants on a pack)",
		header: []string{"grants", "build", "peak", "bundle", "fresh start", "CPU", "resident",
			"replacement CPU", "÷ fresh", "peak", "wrong"},
	}
	var points []*grantPoint
	for _, spec := range grantSpecs(t.quick, t.huge) {
		s, err := t.writeSet(fmt.Sprintf("idp%d", spec.Grants), spec)
		if err != nil {
			return tb, err
		}
		points = append(points, &grantPoint{set: s})
		if t.before != "" && spec.Grants <= beforeGrantsLimit {
			points = append(points, &grantPoint{set: s, before: true})
		}
	}
	if err := t.buildPoints(points); err != nil {
		return tb, err
	}
	if err := t.rolloutPoints(points); err != nil {
		return tb, err
	}
	rest, err := t.restPoints(points, sets["small"])
	if err != nil {
		return tb, err
	}
	for _, p := range points {
		r := p.rollout
		tb.rows = append(tb.rows, []string{p.label(), spread(p.wall), mib(p.peakKB), fileMB(p.bytes),
			seconds(r.fresh.wall), cpuSeconds(r.fresh.cpu), mib(r.fresh.residentKB),
			cpuSeconds(r.quiet.cpu), ratio(r.quiet.cpu, r.fresh.cpu), mib(r.quiet.peakKB), wrongCount(r.wrong)})
	}
	tb.more = append(tb.more, rest, grantGrowth(points))
	tb.notes = append(tb.notes,
		fmt.Sprintf("%s. Build: `hcp-rego build` of the set's grant files (100,000 grants a file), the median wall of %d runs interleaved over the sets (the fastest and slowest in brackets) and the highest peak (its own: see ownPeakOnly). "+
			"Fresh start, replacement and wrong: the rollout table's rounds (%d a set, interleaved; its notes say what each measures), resident being the sidecar's VmRSS once r1 is active, and peak its VmHWM while it replaces r1 by r2 (it holds both).",
			describeShape(points[0].set.spec), min(t.rounds, 3), min(t.rounds, 3)),
		perGrant(points))
	tb.failure = rolloutFailure(summaries(points))
	return tb, nil
}

func (p *grantPoint) label() string {
	label := thousands(p.set.spec.Grants)
	if p.before {
		label += " (before)"
	}
	return label
}

// tag names the point's files: its set's name, and -before for the
// baseline's.
func (p *grantPoint) tag() string {
	if p.before {
		return p.set.name + "-before"
	}
	return p.set.name
}

// hcp is the hcp-rego that builds the point's bundles.
func (p *grantPoint) hcp(t *tools) string {
	if p.before {
		return t.before
	}
	return t.hcp
}

// buildPoints builds each point's bundle, the points taking turns, and
// keeps its wall, peak and size.
func (t *tools) buildPoints(points []*grantPoint) error {
	for range min(t.rounds, 3) {
		for _, p := range points {
			file := filepath.Join(t.work, p.tag()+".tar.gz")
			m, err := t.exec(p.hcp(t), append([]string{"build", "-o", file}, p.set.args()...)...)
			if err != nil {
				return err
			}
			info, err := os.Stat(file)
			if err != nil {
				return err
			}
			p.wall, p.peakKB, p.bytes = append(p.wall, m.seconds), max(p.peakKB, m.peakKB), info.Size()
			if !p.before {
				p.set.bundle = file
			}
			fmt.Fprintf(os.Stderr, "grants: build %s: %.2f s, %s\n", p.label(), m.seconds, mib(m.peakKB))
		}
	}
	return nil
}

// rolloutPoints runs the rollout table's rounds on each point.
func (t *tools) rolloutPoints(points []*grantPoint) error {
	var cases []*rolloutCase
	var labels []string
	for _, p := range points {
		tag := p.tag()
		c, err := t.rolloutCase(p.set, caseBuild{p.hcp(t), tag, nil})
		if err != nil {
			return fmt.Errorf("%s: %w", tag, err)
		}
		cases, labels = append(cases, c), append(labels, tag)
	}
	sums, err := t.interleavedRollouts(cases, labels, min(t.rounds, 3))
	if err != nil {
		return err
	}
	for i, p := range points {
		p.rollout = sums[i]
	}
	return nil
}

// summaries are the points' rollout summaries, in order.
func summaries(points []*grantPoint) []rolloutSummary {
	var sums []rolloutSummary
	for _, p := range points {
		sums = append(sums, p.rollout)
	}
	return sums
}

// restPoints measures decisions through OPA's REST API on this tree's
// bundle of each point, the small set's and the one-rule policy, one
// client keeping its connection alive, the targets taking turns.
func (t *tools) restPoints(points []*grantPoint, small *set) (table, error) {
	tb := table{
		title:  "A million grants: decisions through OPA's REST API (1 client)",
		header: []string{"bundle", "input", "p50", "÷ small", "÷ one rule", "p99", "÷ small"},
	}
	f := &restFleet{t: t}
	defer f.stop()
	serve := f.serve
	if err := serve("one rule", "bench/allow", []string{largeset.Allowed}, t.one); err != nil {
		return tb, err
	}
	smallBundle, err := t.bundleOf(small)
	if err != nil {
		return tb, err
	}
	if err := serve("small", "hcp/authz/decision", largeset.BenchCalls, "--bundle", smallBundle); err != nil {
		return tb, err
	}
	for _, p := range points {
		if !p.before {
			if err := serve(p.label(), "hcp/authz/decision", largeset.BenchCalls, "--bundle", p.set.bundle); err != nil {
				return tb, err
			}
		}
	}
	p50s, p99s, err := t.restRounds(f.targets, []int{1})
	if err != nil {
		return tb, err
	}
	one := median(p50s[restKey{0, 1}])
	smallOf := map[string]restKey{}
	for i, tg := range f.targets {
		if tg.name == "small" {
			smallOf[tg.call] = restKey{i, 1}
		}
	}
	for i, tg := range f.targets[1:] {
		k := restKey{i + 1, 1}
		p50, p99 := median(p50s[k]), median(p99s[k])
		s50, s99 := median(p50s[smallOf[tg.call]]), median(p99s[smallOf[tg.call]])
		tb.rows = append(tb.rows, []string{tg.name, tg.call, micros(p50), ratio(p50, s50), ratio(p50, one), micros(p99), ratio(p99, s99)})
	}
	tb.notes = append(tb.notes, fmt.Sprintf("As the REST table measures (its notes): %d rounds of %d requests a target, in blocks that alternate; one rule's p50 %s. Small: %s.",
		t.rounds, restRequests, micros(one), small.describe()))
	return tb, nil
}

// grantGrowth divides each point's figures by the previous size's of the
// same hcp-rego, and divides what the build's peak and the sidecar's
// resident memory grew by the grants added: a curve that grows linearly
// costs each step the same bytes a grant.
func grantGrowth(points []*grantPoint) table {
	tb := table{
		title: "A million grants: growth from the size before",
		header: []string{"grants", "grants ×", "build ×", "peak ×", "bundle ×", "fresh CPU ×", "resident ×", "replacement CPU ×",
			"peak a grant added", "resident a grant added"},
	}
	prev := map[bool]*grantPoint{}
	for _, p := range points {
		if q := prev[p.before]; q != nil {
			added := float64(p.set.spec.Grants - q.set.spec.Grants)
			tb.rows = append(tb.rows, []string{p.label(),
				ratio2(float64(p.set.spec.Grants), float64(q.set.spec.Grants)),
				ratio2(median(p.wall), median(q.wall)), ratio2(float64(p.peakKB), float64(q.peakKB)),
				ratio2(float64(p.bytes), float64(q.bytes)),
				ratio2(p.rollout.fresh.cpu, q.rollout.fresh.cpu),
				ratio2(float64(p.rollout.fresh.residentKB), float64(q.rollout.fresh.residentKB)),
				ratio2(p.rollout.quiet.cpu, q.rollout.quiet.cpu),
				fmt.Sprintf("%.0f B", float64(p.peakKB-q.peakKB)*1024/added),
				fmt.Sprintf("%.0f B", float64(p.rollout.fresh.residentKB-q.rollout.fresh.residentKB)*1024/added)})
		}
		prev[p.before] = p
	}
	return tb
}

// perGrant says what a grant costs a build's peak, a sidecar's resident
// memory and the bundle, from the smallest size to the largest of each
// hcp-rego: the difference divided by the grants added.
func perGrant(points []*grantPoint) string {
	var says []string
	for _, before := range []bool{false, true} {
		var first, last *grantPoint
		for _, p := range points {
			if p.before == before {
				if first == nil {
					first = p
				}
				last = p
			}
		}
		if first == nil || first == last {
			continue
		}
		n := float64(last.set.spec.Grants - first.set.spec.Grants)
		who := "this tree"
		if before {
			who = "the baseline"
		}
		says = append(says, fmt.Sprintf("%s, from %s to %s grants: build peak %.0f bytes, sidecar resident %.0f bytes, bundle %.0f bytes",
			who, thousands(first.set.spec.Grants), thousands(last.set.spec.Grants),
			float64(last.peakKB-first.peakKB)*1024/n,
			float64(last.rollout.fresh.residentKB-first.rollout.fresh.residentKB)*1024/n,
			float64(last.bytes-first.bytes)/n))
	}
	return "Memory a grant (the growth between sizes over the grants added): " + strings.Join(says, "; ") + "."
}

// describeShape says what an IdP set's packs and grants are.
func describeShape(s largeset.Spec) string {
	return fmt.Sprintf("%d packs of %d commands; grants over %d tenants, 100,000 a file", s.Packs, s.Verbs, s.Tenants)
}

// thousands writes n with a comma between each group of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// fileMB is a file's size in MB (MiB), to a tenth.
func fileMB(bytes int64) string { return fmt.Sprintf("%.1f MB", float64(bytes)/(1<<20)) }

// ratio2 is ratio to a hundredth, for growths whose second digit says
// whether a curve is linear.
func ratio2(x, base float64) string { return fmt.Sprintf("%.2fx", x/base) }

// spread is the median of xs with their least and greatest in brackets,
// in seconds: on a shared machine the range says as much as the median.
func spread(xs []float64) string {
	if len(xs) < 2 {
		return seconds(median(xs))
	}
	return fmt.Sprintf("%s (%.1f–%.1f)", seconds(median(xs)), slices.Min(xs), slices.Max(xs))
}
