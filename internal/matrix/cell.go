package matrix

import (
	"context"
	"fmt"
	"runtime"

	"golang.org/x/sync/errgroup"

	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// Decision codes that a synthetic call can expect
// (docs/decisions.md#the-chain).
const (
	codeAllowed    = "allowed"
	codeConfirm    = "confirm_required"
	codeCapability = "capability_required"
	// codeTenant is the code of every call of a principal whose tenant's
	// grants are not loaded: a sharded build without its tenant's shard
	// (docs/fleet.md). The matrix says so once (Matrix.TenantUnavailable).
	codeTenant = "tenant_unavailable"
)

// DispositionOf maps a decision document to the disposition a harness
// shows: allowed (with allow: true) is allow, confirm_required is ask, and
// anything else is deny. expected is false when the code is none of those
// three or tenant_unavailable, which a synthetic call should never get
// (see Anomaly).
func DispositionOf(decision hcprego.Decision) (d Disposition, code string, expected bool) {
	code = decision.Code
	switch {
	case code == codeAllowed && decision.Allow:
		return Allow, code, true
	case code == codeConfirm && !decision.Allow:
		return Ask, code, true
	case code == codeCapability, code == codeTenant:
		return Deny, code, true
	}
	return Deny, code, false
}

// callInput is the synthetic call of one cell: the principal of the
// subject's column, the row's key, every land fact satisfied, and neither
// confirm, apply nor an allow rule.
func callInput(p map[string]any, id RowID, mode string) map[string]any {
	field := "verb_key"
	if id.Kind == KindStimulus {
		field = "stimulus"
	}
	return map[string]any{
		"principal":      p,
		"pack_id":        id.PackID,
		field:            id.Key,
		"args":           map[string]any{},
		"access":         map[string]any{"mode": mode, "allow": []any{}},
		"owner":          p["id"],
		"project_id":     landProject,
		"workspace":      map[string]any{"root": landRoot, "paths": []any{landPath}},
		"pack_reachable": true,
	}
}

// cell is one decision to make: a row and a column.
type cell struct {
	row, col int
}

// fill decides every cell, on as many goroutines as GOMAXPROCS (the
// evaluator is safe for concurrent use), and records the anomalies in row
// and column order.
func (mx *Matrix) fill(ctx context.Context, ev *hcprego.Evaluator, principals []map[string]any) error {
	cells := make([]cell, 0, len(mx.Rows)*len(principals))
	for r := range mx.Rows {
		for c := range principals {
			cells = append(cells, cell{r, c})
		}
	}
	out := make([]hcprego.Decision, len(cells))
	err := parallel(ctx, len(cells), func(i int) error {
		c := cells[i]
		res, err := ev.Decide(ctx, callInput(principals[c.col], mx.Rows[c.row].RowID, mx.Mode))
		if err != nil {
			return err
		}
		out[i] = res.Decision
		return nil
	})
	if err != nil {
		return err
	}
	for i, c := range cells {
		row, subject := mx.Rows[c.row], mx.Subjects[c.col]
		d, code, ok := DispositionOf(out[i])
		row.Cells[subject] = d
		if code == codeTenant {
			mx.TenantUnavailable = true
		}
		if !ok {
			mx.Anomalies = append(mx.Anomalies, Anomaly{Subject: subject, Row: row.RowID, Code: code})
		}
	}
	return nil
}

// parallel runs do(0..n-1) on up to GOMAXPROCS goroutines and returns the
// first error; after an error no new index starts.
func parallel(ctx context.Context, n int, do func(i int) error) error {
	g, stop := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range n {
		if stop.Err() != nil {
			break
		}
		g.Go(func() error { return do(i) })
	}
	err := g.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("compute matrix: %w", ctx.Err())
	}
	return err
}
