package compile

import (
	"errors"
	"maps"
	"slices"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// Sources is what one run read (Load, Open): the packs and grant files
// that could be read, with the parse trees that lint names positions in,
// and the problems met reading the others. It may be partial: when a file
// is bad, it holds the files that could be read, so that Lint and Check
// still report every problem of the run at once (docs/choices.md, "Every
// problem of a run is reported"). Sources are
// never compiled: Check makes the Model that is.
type Sources struct {
	contents

	// err holds every problem met reading the files, sorted; nil when
	// every file was read.
	err error
	// packsMissing is set when a pack the run meant to read is not here:
	// grants can then not be checked against the packs, since the one a
	// grant names may be the one missing.
	packsMissing bool
	// dropped are the packs read but left out because their id is another
	// pack's: linted, never compiled.
	dropped []*Pack
	// inert, when set, says which grants the run does not hold to lint
	// (see Inert).
	inert func(*Grant) bool
	// checked is the model that Check made; the parse trees are gone then.
	checked *Model
}

// Err returns every problem met reading the files (a file missing,
// unparsable, against its schema, a pack id given twice), sorted; nil when
// every file was read.
func (s *Sources) Err() error { return s.err }

// MarkPacksMissing tells lint that packs the run meant to read are not
// here (a folder discovery could not walk, a case file whose packs were
// not read), so that grants are not checked against the packs that are:
// the pack a grant names may be one of those missing. Check then returns
// no model.
func (s *Sources) MarkPacksMissing() { s.packsMissing = true }

// Inert tells lint which grants this run does not hold to lint: those for
// which inert returns true are neither linted nor a reason to fail, though
// they are still compiled (a grant on a pack the run does not read
// matches no call). A test run uses it for grant files shared with packs
// it does not test.
func (s *Sources) Inert(inert func(*Grant) bool) { s.inert = inert }

// linted returns the grants that lint holds to its checks.
func (s *Sources) linted() []*Grant {
	if s.inert == nil {
		return s.grants
	}
	var gs []*Grant
	for _, g := range s.grants {
		if !s.inert(g) {
			gs = append(gs, g)
		}
	}
	return gs
}

// Problems is every problem of the run in these sources: Err, and what
// Lint finds in the files that could be read. It is nil only when both
// are clean.
func (s *Sources) Problems() error {
	var errs problem.Errors
	errs.Merge("", s.err)
	errs.Merge("", s.Lint())
	return errs.Err()
}

// errPacksMissing is Check's answer for sources whose packs may be missing
// although no problem was found in them: the caller holds the problem
// (why packs are missing), and Check fails closed.
var errPacksMissing = errors.New("packs the run meant to read are missing: the grants cannot be checked against them")

// Check returns the checked Model of the sources, or every problem of the
// run (Problems): for every command but lint, a lint finding makes the
// input bad. Sources marked as missing packs give no model. The model
// lets go of the parse trees, which only lint reads: they are about half
// of what a large model holds, and a build's garbage collector would
// otherwise mark them again and again. So after Check the sources are
// spent: Check returns the same model again, and Lint finds nothing more.
func (s *Sources) Check() (*Model, error) {
	if s.checked != nil {
		return s.checked, nil
	}
	if err := s.Problems(); err != nil {
		return nil, err
	}
	if s.packsMissing {
		return nil, errPacksMissing
	}
	s.dropTrees()
	s.checked = &Model{contents{
		packs:        slices.Clone(s.packs),
		grants:       slices.Clone(s.grants),
		grantFiles:   slices.Clone(s.grantFiles),
		grantDigests: maps.Clone(s.grantDigests),
		byID:         maps.Clone(s.byID),
	}}
	return s.checked, nil
}

// Checked opens the sources (Open) and checks them (Check).
func Checked(packArgs, grantFiles []string) (*Model, error) {
	return Limits{}.Checked(packArgs, grantFiles)
}

// Checked opens the sources within l (Limits.Open) and checks them
// (Check).
func (l Limits) Checked(packArgs, grantFiles []string) (*Model, error) {
	return l.Open(packArgs, grantFiles).Check()
}

// dropTrees lets go of the parsed files. Sources without them cannot be
// linted.
func (s *Sources) dropTrees() {
	for _, p := range slices.Concat(s.packs, s.dropped) {
		p.policy, p.manifest, p.commands, p.triggers = nil, nil, nil, nil
		for _, r := range p.Verbs {
			r.node = nil
		}
		for _, r := range p.Stimuli {
			r.node = nil
		}
	}
}
