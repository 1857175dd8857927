package compare

import (
	"context"
	"fmt"

	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// example returns the first call of list (the classes of calls decided
// differently, in order of preference) as an example, decided by each
// version; nil for an empty list. With a runtime layer it is the first,
// by any of the principal classes kept, that the layer lets through, so
// that the difference shows as the sidecar decides; when the layer masks
// every one, the first, decided without the layer and marked Masked.
func (w *work) example(ctx context.Context, scan *keyScan, k Key, p *pairs, list []combo) (*Example, error) {
	var masked *Example
	for _, c := range list {
		for _, class := range p.classes(c.pair) {
			call, err := scan.callOf(k, class, c)
			if err != nil {
				return nil, errDisagree(k, err.Error())
			}
			in := call.Input()
			ex := &Example{Call: call, Old: decide(w.decideOld, in, reference.Ext{}), New: decide(w.decideNew, in, reference.Ext{})}
			if ex.Old.Disposition() != c.old || ex.New.Disposition() != c.new {
				return nil, errDisagree(k, fmt.Sprintf("a call predicted %s under OLD and %s under NEW is decided %s (%s) and %s (%s)",
					c.old, c.new, ex.Old.Disposition(), ex.Old.Code, ex.New.Disposition(), ex.New.Code))
			}
			if w.o.Layer == nil {
				return ex, nil
			}
			if layered, ok := w.throughLayer(ctx, call, in, c); ok {
				return layered, nil
			}
			if masked == nil {
				masked = ex
				masked.Masked = true
			}
		}
	}
	return masked, nil
}

// throughLayer decides in with the runtime layer on both versions, and
// returns the example when the versions still differ as c says. A layer
// that fails on the input lets nothing through: a sidecar would fail the
// call on both versions.
func (w *work) throughLayer(ctx context.Context, call Call, in map[string]any, c combo) (*Example, bool) {
	deny, confirm, err := w.o.Layer.Values(ctx, in)
	if err != nil {
		return nil, false
	}
	ext := reference.Ext{Deny: deny, Confirm: confirm}
	ex := &Example{Call: call, Old: decide(w.decideOld, in, ext), New: decide(w.decideNew, in, ext)}
	o, n := ex.Old.Disposition(), ex.New.Disposition()
	if (c.new > c.old && n > o) || (c.new < c.old && n < o) {
		return ex, true
	}
	return nil, false
}

// decide is the reference evaluator's decision of in, as an example
// shows it.
func decide(e *reference.Evaluator, in map[string]any, ext reference.Ext) Decision {
	doc := e.Decide(in, ext)
	var d Decision
	d.Allow, _ = doc["allow"].(bool)
	d.Code, _ = doc["code"].(string)
	if src, ok := doc["source"].(map[string]any); ok {
		d.Row, _ = src["row"].(string)
		d.Grant, _ = src["grant"].(string)
	}
	return d
}
