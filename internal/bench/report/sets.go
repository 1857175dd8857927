package main

import (
	"fmt"
	"path/filepath"

	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
)

// set is one generated pack set, with what the tools made of it.
type set struct {
	name  string
	spec  largeset.Spec
	files *largeset.Set
	// Filled by builds: the bundle file and the compiled folder.
	bundle, dir string
	// before is the set's bundle as the baseline hcp-rego (-before)
	// builds it, once a table asks for it (beforeBundle).
	before string
}

// The sets: small and large for latency (a decision must cost the same on
// both), three sizes for build growth, and large1, the large set with all
// its grants in one grant file (a build must keep within 1.5x OPA's when
// one file holds them all).
var standardSizes = map[string]largeset.Spec{
	"small":  {Packs: 60, Verbs: 50, Triggers: 2, Grants: 1000, GrantFiles: 1, Seed: 1},
	"large":  {Packs: 1000, Verbs: 50, Triggers: 2, Grants: 100_000, GrantFiles: 10, Seed: 1},
	"large1": {Packs: 1000, Verbs: 50, Triggers: 2, Grants: 100_000, GrantFiles: 1, Seed: 1},
	"g100":   {Packs: 100, Verbs: 50, Triggers: 2, Grants: 10_000, GrantFiles: 1, Seed: 2},
	"g3000":  {Packs: 3000, Verbs: 50, Triggers: 2, Grants: 300_000, GrantFiles: 30, Seed: 2},
}

var quickSizes = map[string]largeset.Spec{
	"small":  {Packs: 10, Verbs: 20, Triggers: 2, Grants: 200, GrantFiles: 1, Seed: 1},
	"large":  {Packs: 100, Verbs: 50, Triggers: 2, Grants: 10_000, GrantFiles: 2, Seed: 1},
	"large1": {Packs: 100, Verbs: 50, Triggers: 2, Grants: 10_000, GrantFiles: 1, Seed: 1},
	"g100":   {Packs: 20, Verbs: 50, Triggers: 2, Grants: 2_000, GrantFiles: 1, Seed: 2},
	"g3000":  {Packs: 300, Verbs: 50, Triggers: 2, Grants: 30_000, GrantFiles: 3, Seed: 2},
}

func writeSets(dir string, sizes map[string]largeset.Spec) (map[string]*set, error) {
	sets := map[string]*set{}
	for name, spec := range sizes {
		files, err := largeset.Write(filepath.Join(dir, name), spec)
		if err != nil {
			return nil, fmt.Errorf("write set %s: %w", name, err)
		}
		sets[name] = &set{name: name, spec: spec, files: files}
	}
	return sets, nil
}

// describe says what a set holds.
func (s *set) describe() string {
	return fmt.Sprintf("%d packs x %d commands, %d grants", s.spec.Packs, s.spec.Verbs, s.spec.Grants)
}

// describeFiles says what a set holds and in how many grant files: the
// builds table has two sets of the same size, one with its grants spread
// over files and one with them all in one.
func (s *set) describeFiles() string {
	files := "files"
	if len(s.files.GrantFiles) == 1 {
		files = "file"
	}
	return fmt.Sprintf("%s in %d %s", s.describe(), len(s.files.GrantFiles), files)
}

// args are the hcp-rego arguments for the set.
func (s *set) args() []string {
	args := append([]string{}, s.files.PackDirs...)
	for _, g := range s.files.GrantFiles {
		args = append(args, "--grants", g)
	}
	return args
}

// writeSet writes one more set under the report's folder: the sets that
// one table measures, written only when it runs.
// A set of the same name is written once a run.
func (t *tools) writeSet(name string, spec largeset.Spec) (*set, error) {
	if s := t.written[name]; s != nil {
		return s, nil
	}
	files, err := largeset.Write(filepath.Join(t.work, "sets", name), spec)
	if err != nil {
		return nil, fmt.Errorf("write set %s: %w", name, err)
	}
	t.written[name] = &set{name: name, spec: spec, files: files}
	return t.written[name], nil
}

// bundleOf returns s's bundle, built with this tree's hcp-rego if the
// builds table has not built it.
func (t *tools) bundleOf(s *set) (string, error) {
	if s.bundle == "" {
		file := filepath.Join(t.work, s.name+".tar.gz")
		if _, err := t.exec(t.hcp, append([]string{"build", "-o", file}, s.args()...)...); err != nil {
			return "", err
		}
		s.bundle = file
	}
	return s.bundle, nil
}

// beforeBundle returns s's bundle as the baseline hcp-rego (-before)
// builds it, built the first time.
func (t *tools) beforeBundle(s *set) (string, error) {
	if s.before == "" {
		file := filepath.Join(t.work, s.name+"-before.tar.gz")
		if _, err := t.exec(t.before, append([]string{"build", "-o", file}, s.args()...)...); err != nil {
			return "", fmt.Errorf("the baseline's build: %w", err)
		}
		s.before = file
	}
	return s.before, nil
}
