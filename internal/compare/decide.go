package compare

import (
	"context"
	"fmt"

	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// maxLayerTries bounds the calls a key tries through a runtime layer for
// each example: a layer that denies every call would otherwise cost a
// large comparison every class of every key, for examples alone (the
// verdicts do not depend on them).
const maxLayerTries = 16

// example returns the first call of list (the classes of calls decided
// differently, in order of preference) as an example, decided by each
// version; nil for an empty list. With a runtime layer it is the first,
// by any of the principal classes kept, among the first maxLayerTries,
// that the layer lets through, so that the difference shows as the
// sidecar decides; when the layer masks every one, the first, decided
// without the layer and marked Masked. Every example returned was also
// decided without the layer, as the analysis predicted: a call that is
// not is a defect of compare's, and an error.
func (w *work) example(ctx context.Context, scan *keyScan, k Key, p *pairs, list []combo) (*Example, error) {
	if len(list) == 0 {
		return nil, nil
	}
	if w.o.Layer != nil {
		tries := 0
		for _, c := range list {
			for _, class := range p.classes(c.pair) {
				if tries++; tries > maxLayerTries {
					return w.predicted(scan, k, p.by[list[0].pair], list[0], true)
				}
				call, err := scan.callOf(k, class, c)
				if err != nil {
					return nil, errDisagree(k, err.Error())
				}
				if layered, ok := w.throughLayer(ctx, call, c); ok {
					if _, err := w.predicted(scan, k, class, c, false); err != nil {
						return nil, err
					}
					return layered, nil
				}
			}
		}
	}
	return w.predicted(scan, k, p.by[list[0].pair], list[0], w.o.Layer != nil)
}

// predicted decides the call of class c for principal class by each
// version without a runtime layer, and returns it as an example (marked
// Masked as masked says), or an error when the decisions are not the
// dispositions the analysis predicted.
func (w *work) predicted(scan *keyScan, k Key, class witness, c combo, masked bool) (*Example, error) {
	call, err := scan.callOf(k, class, c)
	if err != nil {
		return nil, errDisagree(k, err.Error())
	}
	in := call.Input()
	ex := &Example{Call: call, Old: decide(w.decideOld, in, reference.Ext{}), New: decide(w.decideNew, in, reference.Ext{}), Masked: masked}
	if ex.Old.Disposition() != c.old || ex.New.Disposition() != c.new {
		return nil, errDisagree(k, fmt.Sprintf("a call predicted %s under OLD and %s under NEW is decided %s (%s) and %s (%s)",
			c.old, c.new, ex.Old.Disposition(), ex.Old.Code, ex.New.Disposition(), ex.New.Code))
	}
	return ex, nil
}

// throughLayer decides the call with the runtime layer on both versions,
// and returns it as an example when the versions still differ as c says.
// A layer that fails on the input, or denies it, lets nothing through: a
// sidecar would fail or deny the call on both versions.
func (w *work) throughLayer(ctx context.Context, call Call, c combo) (*Example, bool) {
	in := call.Input()
	deny, confirm, err := w.o.Layer.Values(ctx, in)
	if err != nil || reference.Fires(deny) {
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
