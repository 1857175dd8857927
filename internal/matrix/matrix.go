// Package matrix computes who gets what (docs/matrix.md): for every
// subject of the grant files and every command and trigger of the packs,
// the disposition a harness would show (allow, ask or deny). Each cell is
// a decision of the decision library, evaluated by the embedded evaluator
// on a synthetic call that satisfies every land fact; nothing here
// restates the chain. The package also compares two versions of a
// repository cell by cell and renders both as a terminal table, Markdown
// or JSON.
package matrix

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// Disposition is what a harness shows for one subject and one command or
// trigger.
type Disposition string

// The three dispositions of seed 004.
const (
	Allow Disposition = "allow" // the decision is allowed
	Ask   Disposition = "ask"   // the decision is confirm_required
	Deny  Disposition = "deny"  // any other decision
)

// The modes of access.mode (docs/files.md#the-decision-input).
const (
	ModeAsk = "ask"
	ModeRun = "run"
)

// The kinds of rows, as the JSON matrix writes them.
const (
	KindVerb     = "verb"
	KindStimulus = "stimulus"
)

// RowID names a command or trigger of a pack.
type RowID struct {
	PackID string `json:"pack_id"`
	Kind   string `json:"kind"` // KindVerb or KindStimulus
	Key    string `json:"key"`
}

// String is the row as messages name it: "ledger verb transfer".
func (id RowID) String() string { return id.PackID + " " + id.Kind + " " + id.Key }

// Row is one command or trigger and the disposition of each subject.
type Row struct {
	RowID
	// Operation is the row's operation, "read" or "write"; exports need it
	// (a harness may tell writes apart), the JSON matrix does not carry it.
	Operation string                 `json:"-"`
	Cells     map[string]Disposition `json:"cells"`
}

// Anomaly is a cell whose decision was neither allowed, confirm_required
// nor capability_required. The synthetic call satisfies every other step
// of the chain, so an anomaly means the library and this package disagree;
// the cell is shown as deny (fail closed) and the command says so.
type Anomaly struct {
	Subject string
	Row     RowID
	Code    string
}

// Matrix is the disposition of every subject on every row. Its JSON form
// is docs/matrix.md's.
type Matrix struct {
	Mode      string    `json:"mode"`
	Subjects  []string  `json:"subjects"`
	Rows      []*Row    `json:"rows"`
	Anomalies []Anomaly `json:"-"`
	// TenantNotes name the grants that count in no cell, since they hold
	// only for another tenant than the principals'. The table and
	// Markdown show them above the table.
	TenantNotes []TenantNote `json:"-"`
	// TenantUnavailable is true when some cell was decided
	// tenant_unavailable: the principals' tenant's shard is not among
	// the bundles decided with (ComputeBundle), and its cells show deny.
	TenantUnavailable bool `json:"-"`
}

// Options say which cells to compute.
type Options struct {
	// Mode is access.mode of every call: ModeAsk (when empty) or ModeRun.
	Mode string
	// Tenant is principal.tenant of every subject; empty means none, so
	// grants scoped to a tenant count for no cell.
	Tenant string
	// Subjects are the columns, in order. Nil means Subjects(m). A subject
	// that no grant names is allowed: it is evaluated like any other.
	Subjects []string
}

// Compute evaluates the matrix of m with the decision library through the
// embedded evaluator: one decision per subject and row.
func Compute(ctx context.Context, m *compile.Model, o Options) (*Matrix, error) {
	if o.Mode == "" {
		o.Mode = ModeAsk
	}
	if o.Mode != ModeAsk && o.Mode != ModeRun {
		return nil, fmt.Errorf("mode %q: want ask or run", o.Mode)
	}
	subjects := o.Subjects
	if subjects == nil {
		subjects = Subjects(m)
	}
	principals, err := principalsFor(principalIDs(m), subjects, o.Tenant)
	if err != nil {
		return nil, err
	}
	b, err := compile.Compile(m, "")
	if err != nil {
		return nil, err
	}
	ev, err := hcprego.New(ctx, b)
	if err != nil {
		return nil, err
	}
	mx := &Matrix{Mode: o.Mode, Subjects: slices.Clone(subjects), Rows: rowsOf(m), TenantNotes: TenantNotesOf(m, o.Tenant)}
	if err := mx.fill(ctx, ev, principals); err != nil {
		return nil, err
	}
	return mx, nil
}

// rowsOf lists the rows of m: packs by id; in each pack its commands, then
// its triggers, each in the order policy.json lists them (by line, then
// key), which is the order the pack's author chose.
func rowsOf(m *compile.Model) []*Row {
	var rows []*Row
	for _, p := range m.Packs() {
		for _, k := range []compile.Kind{compile.Verb, compile.Stimulus} {
			pr := slices.SortedFunc(maps.Values(p.Rows(k)), func(a, b *compile.Row) int {
				return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Key, b.Key))
			})
			for _, r := range pr {
				rows = append(rows, &Row{
					RowID:     RowID{PackID: p.ID, Kind: kindName(k), Key: r.Key},
					Operation: r.Operation,
					Cells:     map[string]Disposition{},
				})
			}
		}
	}
	return rows
}

func kindName(k compile.Kind) string {
	if k == compile.Stimulus {
		return KindStimulus
	}
	return KindVerb
}
