package compile

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/source"
)

// Load reads every pack and grant file, and returns the model or every
// problem found in any of them, sorted. It does not lint.
func Load(packDirs, grantFiles []string) (*Model, error) {
	m := &Model{GrantDigests: map[string]string{}, byID: map[string]*Pack{}}
	var errs source.Errors
	for _, dir := range packDirs {
		p, err := LoadPack(dir)
		if err != nil {
			errs.Merge(dir, err)
			continue
		}
		if other, dup := m.byID[p.ID]; dup {
			errs.Add(p.ManifestFile, p.manifest.Field("id").Pos, "pack id %q is also the id of %s", p.ID, other.ManifestFile)
			continue
		}
		m.byID[p.ID] = p
		m.Packs = append(m.Packs, p)
	}
	for _, file := range grantFiles {
		file = filepath.ToSlash(file)
		grants, sum, err := LoadGrants(file, len(m.Grants))
		if err != nil {
			errs.Merge(file, err)
			continue
		}
		m.Grants = append(m.Grants, grants...)
		m.GrantFiles = append(m.GrantFiles, file)
		m.GrantDigests[file] = sum
	}
	if len(errs) > 0 {
		return nil, errs.Err()
	}
	slices.SortFunc(m.Packs, func(a, b *Pack) int { return strings.Compare(a.ID, b.ID) })
	return m, nil
}

// Open resolves PACK_DIR arguments (see PackDirs) and loads the model.
func Open(packArgs, grantFiles []string) (*Model, error) {
	dirs, err := PackDirs(packArgs)
	if err != nil {
		return nil, err
	}
	return Load(dirs, grantFiles)
}

// Checked opens the model and lints it: for every command but lint, a lint
// finding makes the input bad.
func Checked(packArgs, grantFiles []string) (*Model, error) {
	m, err := Open(packArgs, grantFiles)
	if err != nil {
		return nil, err
	}
	if err := Lint(m); err != nil {
		return nil, err
	}
	return m, nil
}
