package compile

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/hcp-rego/hcp-rego/source"
)

// Load reads every pack and grant file, each once, and returns the model
// or every problem found in any of them, sorted. It does not lint. Files are read
// and validated in parallel; the model does not depend on the order they
// finish in.
//
// When a file is bad, the model Load returns beside the error holds the
// files that could be read, so that a caller can still lint them and
// report every problem of the run at once (SPEC §2.2). Such a model is for
// Lint only: it must not be compiled.
func Load(packDirs, grantFiles []string) (*Model, error) {
	// A folder or file named twice (two spellings, a link) is read once,
	// in the spelling first given.
	packDirs, grantFiles = onceEach(slices.Clone(packDirs)), onceEach(slices.Clone(grantFiles))
	m := &Model{GrantDigests: map[string]string{}, byID: map[string]*Pack{}}
	var errs source.Errors
	packs := inParallel(packDirs, func(dir string) loaded[*Pack] {
		p, err := LoadPack(dir)
		return loaded[*Pack]{p, "", err}
	})
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
		m.Packs = append(m.Packs, p)
	}
	files := inParallel(grantFiles, func(file string) loaded[[]*Grant] {
		grants, sum, err := loadGrants(filepath.ToSlash(file))
		return loaded[[]*Grant]{grants, sum, err}
	})
	for i, r := range files {
		file := filepath.ToSlash(grantFiles[i])
		if r.err != nil {
			errs.Merge(file, r.err)
			continue
		}
		for _, g := range r.value {
			g.Index, g.FileIndex = len(m.Grants), len(m.GrantFiles)
			m.Grants = append(m.Grants, g)
		}
		m.GrantFiles = append(m.GrantFiles, file)
		m.GrantDigests[file] = r.sum
	}
	slices.SortFunc(m.Packs, func(a, b *Pack) int { return strings.Compare(a.ID, b.ID) })
	return m, errs.Err()
}

// loaded is what reading one file gave.
type loaded[T any] struct {
	value T
	sum   string
	err   error
}

// inParallel applies load to every item on all CPUs and returns the
// results in the items' order.
func inParallel[T any](items []string, load func(string) loaded[T]) []loaded[T] {
	out := make([]loaded[T], len(items))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, item := range items {
		g.Go(func() error {
			out[i] = load(item)
			return nil
		})
	}
	_ = g.Wait()
	return out
}

// Open resolves PACK_DIR arguments (see PackDirs) and loads the model
// with each grant file once, however often it is given. Grant file paths
// are tidied as pack folders are ("./g.json" is "g.json"), so that
// source.grant and source.row spell paths alike and the bundle does not
// depend on how a path was spelled.
//
// A PACK_DIR that cannot be resolved does not stop the others, nor the
// grant files, from being read: the error names every problem, beside the
// partial model that Load returns.
func Open(packArgs, grantFiles []string) (*Model, error) {
	dirs, dirErr := PackDirs(packArgs)
	m, err := Load(dirs, tidied(slices.Clone(grantFiles)))
	if dirErr == nil {
		return m, err
	}
	m.MarkPacksMissing()
	var errs source.Errors
	errs.Merge("", dirErr)
	errs.Merge("", err)
	return m, errs.Err()
}

// Checked opens the model and lints it: for every command but lint, a lint
// finding makes the input bad. When a file is bad, the findings in the
// files that could be read are reported with it.
func Checked(packArgs, grantFiles []string) (*Model, error) {
	m, err := Open(packArgs, grantFiles)
	if err := LintLoaded(m, err); err != nil {
		return nil, err
	}
	m.dropTrees()
	return m, nil
}

// LintLoaded is every problem of a Load or Open that returned m and err:
// err, and what Lint finds in the files that could be read. It is nil only
// when both are clean.
func LintLoaded(m *Model, err error) error {
	if m == nil {
		return err
	}
	var errs source.Errors
	errs.Merge("", err)
	errs.Merge("", Lint(m))
	return errs.Err()
}

// dropTrees lets go of the parsed files, which only lint reads (for the
// positions it names): they are about half of what a large model holds, and
// a build's garbage collector would otherwise mark them again and again.
// A model without them cannot be linted.
func (m *Model) dropTrees() {
	for _, p := range m.Packs {
		p.policy, p.manifest, p.commands, p.triggers = nil, nil, nil, nil
		for _, r := range p.Verbs {
			r.node = nil
		}
		for _, r := range p.Stimuli {
			r.node = nil
		}
	}
	for _, g := range m.Grants {
		g.node = nil
	}
}
