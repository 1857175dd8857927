package matrix

import (
	"context"
	"slices"

	"github.com/hcp-rego/hcp-rego/compile"
)

// Absent is the "disposition" of a row that one version does not have. A
// call to it is unknown_command, a deny, so a change is reported only when
// the other side is allow or ask.
const Absent Disposition = ""

// Change is one cell whose disposition differs between two versions.
type Change struct {
	Subject  string
	Row      RowID
	Old, New Disposition // Absent when the row is not in that version
}

// Delta is what changed between two versions of a repository of packs and
// grant files: the changed cells, subject by subject (in the order of
// Delta.Subjects) and row by row, and the rows and subjects that appeared
// or went away.
type Delta struct {
	Mode            string
	Subjects        []string
	Changes         []Change
	AddedRows       []RowID
	RemovedRows     []RowID
	AddedSubjects   []string
	RemovedSubjects []string
	// Old and New are the two matrices, over the same subjects.
	Old, New *Matrix
}

// Compare computes the matrices of two versions over the same subjects and
// returns the cells that changed. The subjects are those of o, or else
// every subject either version names (the new version's first) and then
// Default; a subject that one version does not name is evaluated there all
// the same (a principal holding it would get what that version gives it,
// default grants included), so a renamed role shows what its holders gain
// and lose.
func Compare(ctx context.Context, before, after *compile.Model, o Options) (*Delta, error) {
	oldNamed, newNamed := named(before), named(after)
	subjects := o.Subjects
	if subjects == nil {
		subjects = append(union(newNamed, oldNamed), Default)
	}
	o.Subjects = subjects
	oldMx, err := Compute(ctx, before, o)
	if err != nil {
		return nil, err
	}
	newMx, err := Compute(ctx, after, o)
	if err != nil {
		return nil, err
	}
	d := &Delta{
		Mode:            newMx.Mode,
		Subjects:        subjects,
		AddedSubjects:   minus(newNamed, oldNamed),
		RemovedSubjects: minus(oldNamed, newNamed),
		AddedRows:       minus(rowIDs(newMx), rowIDs(oldMx)),
		RemovedRows:     minus(rowIDs(oldMx), rowIDs(newMx)),
		Old:             oldMx,
		New:             newMx,
	}
	d.Changes = changes(subjects, union(rowIDs(newMx), rowIDs(oldMx)), cellsOf(oldMx), cellsOf(newMx))
	return d, nil
}

// changes lists the cells whose effective disposition differs, an absent
// row counting as deny.
func changes(subjects []string, rows []RowID, before, after map[RowID]map[string]Disposition) []Change {
	var out []Change
	for _, s := range subjects {
		for _, id := range rows {
			o, n := before[id][s], after[id][s]
			if effective(o) != effective(n) {
				out = append(out, Change{Subject: s, Row: id, Old: o, New: n})
			}
		}
	}
	return out
}

func effective(d Disposition) Disposition {
	if d == Absent {
		return Deny
	}
	return d
}

// named is Subjects(m) without Default.
func named(m *compile.Model) []string {
	s := Subjects(m)
	return s[:len(s)-1]
}

func rowIDs(mx *Matrix) []RowID {
	ids := make([]RowID, len(mx.Rows))
	for i, r := range mx.Rows {
		ids[i] = r.RowID
	}
	return ids
}

func cellsOf(mx *Matrix) map[RowID]map[string]Disposition {
	cells := make(map[RowID]map[string]Disposition, len(mx.Rows))
	for _, r := range mx.Rows {
		cells[r.RowID] = r.Cells
	}
	return cells
}

// union is a followed by the members of b that a lacks, in order.
func union[T comparable](a, b []T) []T {
	return append(slices.Clone(a), minus(b, a)...)
}

// minus is the members of a that b lacks, in order.
func minus[T comparable](a, b []T) []T {
	in := make(map[T]bool, len(b))
	for _, x := range b {
		in[x] = true
	}
	var out []T
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}
