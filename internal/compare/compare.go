package compare

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// Key names a command or trigger of a pack.
type Key struct {
	Pack string
	Kind compile.Kind
	Key  string
}

// Finding is the verdict on a key that is not the same in both versions,
// with an example of each way the versions differ: Wider for a wider,
// mixed or added key that someone may call, Narrower for a narrower,
// mixed or removed key that someone could call.
type Finding struct {
	Key
	Verdict  Verdict
	Wider    *Example
	Narrower *Example
}

// Counts counts the keys of both versions by verdict.
type Counts struct {
	Keys, Same, Narrower, Wider, Mixed, Added, Removed int
}

// Report is what compare found: every key that is not the same (wider
// first, then mixed, added, narrower and removed; then by pack, kind and
// key) and the counts of all.
type Report struct {
	Findings []Finding
	Counts   Counts
}

// Widens reports whether some call is decided more permissively by NEW:
// a key wider or mixed, or added with a principal that may call it (what
// --fail-on wider fails on).
func (r *Report) Widens() bool {
	for _, f := range r.Findings {
		if f.Wider != nil {
			return true
		}
	}
	return false
}

// Layer is a runtime's own rules (docs/decisions.md item 6), the same in
// both versions: Values gives data.hcp.ext.deny and data.hcp.ext.confirm
// for an input, as decoded JSON (nil when undefined).
type Layer interface {
	Values(ctx context.Context, input map[string]any) (deny, confirm any, err error)
}

// Options are compare's settings.
type Options struct {
	// Layer, when set, is loaded on both sides: each example is one that
	// the layer lets through where compare finds one (see Example.Masked).
	Layer Layer
}

// Compare decides, for every command and trigger of either version, how
// NEW decides every call that any principal could make against how OLD
// decides it, and returns the keys that differ with an example each way
// (docs/compare.md). The space of calls is infinite, but the decision
// reads names only by equality with the names the grants and rows hold, so
// it falls into finitely many classes, and Compare decides each class: see
// docs/compare.md for the argument. Each example is decided by the Go
// reference evaluator on both versions, and must show the difference the
// analysis predicted: a disagreement is an error, never a verdict.
func Compare(ctx context.Context, before, after *compile.Model, o Options) (*Report, error) {
	u := newUniverse(before.Grants(), after.Grants())
	w := &work{u: u, old: before, new: after, o: o,
		decideOld: reference.New(before.Packs(), before.Grants()),
		decideNew: reference.New(after.Packs(), after.Grants())}
	keys := keysOf(before, after)
	found := make([]*Finding, len(keys))
	g, ctx := errgroup.WithContext(ctx) // one worker's error stops the others
	workers := runtime.GOMAXPROCS(0)
	for n := range workers {
		g.Go(func() error {
			scan := newKeyScan(u)
			for i := n; i < len(keys); i += workers {
				if err := ctx.Err(); err != nil {
					return err
				}
				f, err := w.judge(ctx, scan, keys[i])
				if err != nil {
					return err
				}
				found[i] = f
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return report(len(keys), found), nil
}

// work is what every worker shares.
type work struct {
	u                    *universe
	old, new             *compile.Model
	o                    Options
	decideOld, decideNew *reference.Evaluator
}

// judge decides one key: nil when it is the same.
func (w *work) judge(ctx context.Context, scan *keyScan, k Key) (*Finding, error) {
	rowOld, rowNew := rowOf(w.old, k), rowOf(w.new, k)
	p := scan.pairs(k, capabilityOf(rowOld), capabilityOf(rowNew), w.o.Layer != nil)
	wider, narrower := combos(rowOld, rowNew, &p)
	f := &Finding{Key: k, Verdict: verdictOf(rowOld, rowNew, wider, narrower)}
	if f.Verdict == Same {
		return nil, nil
	}
	var err error
	if f.Wider, err = w.example(ctx, scan, k, &p, wider); err != nil {
		return nil, err
	}
	if f.Narrower, err = w.example(ctx, scan, k, &p, narrower); err != nil {
		return nil, err
	}
	return f, nil
}

func rowOf(m *compile.Model, k Key) *compile.Row {
	p := m.Pack(k.Pack)
	if p == nil {
		return nil
	}
	return p.Row(k.Kind, k.Key)
}

func capabilityOf(r *compile.Row) string {
	if r == nil {
		return ""
	}
	return r.Capability()
}

// keysOf lists every command and trigger of either version, by pack,
// kind and key.
func keysOf(before, after *compile.Model) []Key {
	seen := map[Key]bool{}
	var keys []Key
	for _, m := range []*compile.Model{before, after} {
		for _, p := range m.Packs() {
			for _, kind := range []compile.Kind{compile.Verb, compile.Stimulus} {
				for key := range p.Rows(kind) {
					k := Key{Pack: p.ID, Kind: kind, Key: key}
					if !seen[k] {
						seen[k] = true
						keys = append(keys, k)
					}
				}
			}
		}
	}
	slices.SortFunc(keys, compareKeys)
	return keys
}

func compareKeys(a, b Key) int {
	if c := strings.Compare(a.Pack, b.Pack); c != 0 {
		return c
	}
	if a.Kind != b.Kind {
		return int(a.Kind) - int(b.Kind)
	}
	return strings.Compare(a.Key, b.Key)
}

// verdictOrder sorts the findings: what widens first.
var verdictOrder = map[Verdict]int{Wider: 0, Mixed: 1, Added: 2, Narrower: 3, Removed: 4}

// report counts the verdicts and sorts the findings.
func report(keys int, found []*Finding) *Report {
	r := &Report{Counts: Counts{Keys: keys}}
	for _, f := range found {
		if f == nil {
			r.Counts.Same++
			continue
		}
		switch f.Verdict {
		case Narrower:
			r.Counts.Narrower++
		case Wider:
			r.Counts.Wider++
		case Mixed:
			r.Counts.Mixed++
		case Added:
			r.Counts.Added++
		case Removed:
			r.Counts.Removed++
		}
		r.Findings = append(r.Findings, *f)
	}
	slices.SortStableFunc(r.Findings, func(a, b Finding) int {
		return verdictOrder[a.Verdict] - verdictOrder[b.Verdict]
	})
	return r
}

// errDisagree is an analysis that a decision contradicts: a defect of
// compare's, reported as such rather than as a verdict.
func errDisagree(k Key, what string) error {
	return fmt.Errorf("compare's analysis of %s %q in pack %q disagrees with the decision: %s (a defect: please report it)", k.Kind, k.Key, k.Pack, what)
}
