package compile

import (
	"cmp"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/hcp-rego/hcp-rego/internal/discover"
	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// Limits bound what one run reads of its packs and grant files
// (docs/commands.md#limits): their bytes in all, and the JSON values that
// so many bytes may hold (document.SourceLimits). A run past them is
// refused once, at the file:line:col where it passes them. The zero value
// sets the defaults, sized for 1,000,000 grants in one file or many and
// 10,000 packs.
type Limits struct {
	// Bytes bounds the bytes of the run's packs and grant files in all;
	// 0 means document.DefaultSourceBytes.
	Bytes int64
	// Hint says how to raise the limits ("--max-source-bytes raises
	// it"); the refusal ends with it.
	Hint string

	// spill, when set, takes each grant with a tenant as it is read, in
	// place of the sources (BuildShards).
	spill *spill
}

// budget returns the budget of one run within the limits.
func (l Limits) budget() *document.Budget {
	limits := document.SourceLimits(cmp.Or(l.Bytes, document.DefaultSourceBytes))
	limits.Hint = l.Hint
	return document.NewBudgetOf(limits)
}

// Load reads every pack and grant file within the default limits (see
// Limits.Load).
func Load(packDirs, grantFiles []string) *Sources { return Limits{}.Load(packDirs, grantFiles) }

// Load reads every pack and grant file, each once, and returns what it
// read, with every problem found in any of them (Sources.Err). It does not
// lint: Sources.Check does. Files are read and validated in parallel; the
// sources do not depend on the order they finish in. Their bytes and
// values count against one budget within l, and a run past it is
// refused alike whatever that order (see loadAll).
//
// When a file is bad, the sources hold the files that could be read, so
// that Check still reports every problem of the run at once
// (docs/choices.md, "Every problem of a run is reported").
func (l Limits) Load(packDirs, grantFiles []string) *Sources {
	// A folder or file named twice (two spellings, a link) is read once,
	// in the spelling first given.
	packDirs, grantFiles = discover.OnceEach(slices.Clone(packDirs)), discover.OnceEach(slices.Clone(grantFiles))
	m := &Sources{contents: contents{grantDigests: map[string]string{}, byID: map[string]*Pack{}}}
	var errs problem.Errors
	before := 0 // the grants of the files before, spilled or not
	packs, files := loadAll(packDirs, grantFiles, l.budget, l.spill)
	for i, r := range packs {
		errs.Merge(packDirs[i], r.err)
		p := r.value
		if p == nil {
			m.packsMissing = true
			continue
		}
		if other, dup := m.byID[p.ID]; dup {
			errs.Add(p.ManifestFile, p.manifest.Field("id").Pos, "pack id %q is also the id of %s", p.ID, other.ManifestFile)
			m.packsMissing = true
			m.dropped = append(m.dropped, p)
			continue
		}
		m.byID[p.ID] = p
		m.packs = append(m.packs, p)
	}
	for i, r := range files {
		file := filepath.ToSlash(grantFiles[i])
		switch {
		case r.err != nil:
			errs.Merge(file, r.err)
			continue
		case r.skipped:
			continue
		}
		for _, g := range r.value {
			g.Index, g.FileIndex = before+g.N-1, len(m.grantFiles)
			m.grants = append(m.grants, g)
		}
		before += len(r.value) + l.spill.spilled(i)
		m.grantFiles = append(m.grantFiles, file)
		m.grantDigests[file] = r.sum
	}
	slices.SortFunc(m.packs, func(a, b *Pack) int { return strings.Compare(a.ID, b.ID) })
	m.err = errs.Err()
	return m
}

// loaded is what reading one file gave.
type loaded[T any] struct {
	value T
	sum   string
	err   error
	// skipped is set when the file was not read: the run had passed its
	// limits before it.
	skipped bool
}

// loadAll reads every pack folder and grant file, their bytes and values
// counted in one budget (newBudget), and returns what each gave in the
// order given. It reads them in parallel; when that meets a limit of the
// run, it reads them again one at a time, so that the same input is
// refused alike: which file met the limit in parallel, and at which
// value, depended on the order they ran in. In order, the file refused is
// the one whose byte or value passes the limit, counting the grant
// files, then each pack's manifest.json and policy.json, in the order
// given; the files after it are not read, so that the run is refused
// once. The budget refuses a value only past its limit, in parallel too:
// a run read twice is a run refused. A run that spills (sp) is not read
// twice: a sharded build reads a run with any problem again, without
// spilling, to name its problems (BuildShards).
func loadAll(packDirs, grantFiles []string, newBudget func() *document.Budget, sp *spill) ([]loaded[*Pack], []loaded[[]*Grant]) {
	budget := newBudget()
	if packs, files := readAll(packDirs, grantFiles, budget, runtime.GOMAXPROCS(0), sp); !budget.Refused() || sp != nil {
		return packs, files
	}
	// What the first read kept is garbage now, not held through the second.
	return readAll(packDirs, grantFiles, newBudget(), 1, nil)
}

// readAll reads every pack folder and grant file with budget, workers at
// a time, in one pool, and returns what each gave in the order given.
// Grant files are started first: one file can hold every grant of a run,
// the largest single piece of work, and the packs then share the other
// CPUs with it rather than wait for it, or it for them. One worker reads
// the files in that order, each after the last (errgroup's Go waits for
// room). A file not started when the budget has refused one is skipped.
// With sp, each grant with a tenant goes to sp, not to what it returns.
func readAll(packDirs, grantFiles []string, budget *document.Budget, workers int, sp *spill) ([]loaded[*Pack], []loaded[[]*Grant]) {
	packs := make([]loaded[*Pack], len(packDirs))
	files := make([]loaded[[]*Grant], len(grantFiles))
	var g errgroup.Group
	g.SetLimit(workers)
	for i, file := range grantFiles {
		g.Go(func() error {
			if budget.Refused() {
				files[i].skipped = true
				return nil
			}
			grants, sum, err := loadGrants(filepath.ToSlash(file), budget, sp, i)
			files[i] = loaded[[]*Grant]{value: grants, sum: sum, err: err}
			return nil
		})
	}
	for i, dir := range packDirs {
		g.Go(func() error {
			if budget.Refused() {
				packs[i].skipped = true
				return nil
			}
			p, err := loadPack(dir, budget)
			packs[i] = loaded[*Pack]{value: p, err: err}
			return nil
		})
	}
	_ = g.Wait()
	return packs, files
}

// Open resolves PACK_DIR arguments (see PackDirs) and loads the sources
// with each grant file once, however often it is given. Grant file paths
// are tidied as pack folders are ("./g.json" is "g.json"), so that
// source.grant and source.row spell paths alike and the bundle does not
// depend on how a path was spelled.
//
// A PACK_DIR that cannot be resolved does not stop the others, nor the
// grant files, from being read: Err names every problem, and the sources
// are marked as missing packs.
func Open(packArgs, grantFiles []string) *Sources { return Limits{}.Open(packArgs, grantFiles) }

// Open is Open within l.
func (l Limits) Open(packArgs, grantFiles []string) *Sources {
	dirs, dirErr := discover.PackDirs(packArgs)
	s := l.Load(dirs, discover.Tidied(slices.Clone(grantFiles)))
	if dirErr == nil {
		return s
	}
	s.MarkPacksMissing()
	var errs problem.Errors
	errs.Merge("", dirErr)
	errs.Merge("", s.err)
	s.err = errs.Err()
	return s
}
