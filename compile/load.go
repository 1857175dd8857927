package compile

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/hcp-rego/hcp-rego/internal/discover"
	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// Load reads every pack and grant file, each once, and returns what it
// read, with every problem found in any of them (Sources.Err). It does not
// lint: Sources.Check does. Files are read and validated in parallel; the
// sources do not depend on the order they finish in. Their values count
// against one budget (document.MaxJSONValues in all), and a run past it
// is refused alike whatever that order (see loadAll).
//
// When a file is bad, the sources hold the files that could be read, so
// that Check still reports every problem of the run at once (SPEC §2.2).
func Load(packDirs, grantFiles []string) *Sources {
	// A folder or file named twice (two spellings, a link) is read once,
	// in the spelling first given.
	packDirs, grantFiles = discover.OnceEach(slices.Clone(packDirs)), discover.OnceEach(slices.Clone(grantFiles))
	m := &Sources{contents: contents{grantDigests: map[string]string{}, byID: map[string]*Pack{}}}
	var errs problem.Errors
	packs, files := loadAll(packDirs, grantFiles, document.NewBudget)
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
		if r.err != nil {
			errs.Merge(file, r.err)
			continue
		}
		for _, g := range r.value {
			g.Index, g.FileIndex = len(m.grants), len(m.grantFiles)
			m.grants = append(m.grants, g)
		}
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
}

// loadAll reads every pack folder and grant file, their values counted in
// one budget (newBudget), and returns what each gave in the order given.
// It reads them in parallel; when that meets the run's limit of values,
// it reads them again one at a time, so that the same input is refused
// alike: which file met the limit in parallel, and at which value,
// depended on the order they ran in. In order, the file refused is the
// one whose value passes the limit, counting the grant files, then each
// pack's manifest.json and policy.json, in the order given; each file
// after it is refused at its first value. The budget refuses a value
// only past its limit, in parallel too: a run read twice is a run
// refused.
func loadAll(packDirs, grantFiles []string, newBudget func() *document.Budget) ([]loaded[*Pack], []loaded[[]*Grant]) {
	budget := newBudget()
	if packs, files := readAll(packDirs, grantFiles, budget, runtime.GOMAXPROCS(0)); !budget.Refused() {
		return packs, files
	}
	// What the first read kept is garbage now, not held through the second.
	return readAll(packDirs, grantFiles, newBudget(), 1)
}

// readAll reads every pack folder and grant file with budget, workers at
// a time, in one pool, and returns what each gave in the order given.
// Grant files are started first: one file can hold every grant of a run,
// the largest single piece of work, and the packs then share the other
// CPUs with it rather than wait for it, or it for them. One worker reads
// the files in that order, each after the last (errgroup's Go waits for
// room).
func readAll(packDirs, grantFiles []string, budget *document.Budget, workers int) ([]loaded[*Pack], []loaded[[]*Grant]) {
	packs := make([]loaded[*Pack], len(packDirs))
	files := make([]loaded[[]*Grant], len(grantFiles))
	var g errgroup.Group
	g.SetLimit(workers)
	for i, file := range grantFiles {
		g.Go(func() error {
			grants, sum, err := loadGrants(filepath.ToSlash(file), budget)
			files[i] = loaded[[]*Grant]{grants, sum, err}
			return nil
		})
	}
	for i, dir := range packDirs {
		g.Go(func() error {
			p, err := loadPack(dir, budget)
			packs[i] = loaded[*Pack]{p, "", err}
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
func Open(packArgs, grantFiles []string) *Sources {
	dirs, dirErr := discover.PackDirs(packArgs)
	s := Load(dirs, discover.Tidied(slices.Clone(grantFiles)))
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
