// Package reference is the independent Go reading of the decision as
// docs/decisions.md states it.
//
// It is written from the text alone and shares no code with the Rego
// decision library, so that differential tests can hold the two to the same
// answer field by field: where they disagree, one of them misreads the
// contract. It also sets the performance floor for a decision: New indexes
// the model once, and Decide costs a few map lookups whatever the number of
// grants or rows.
package reference

import (
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/schema"
)

// Ext is the runtime layer of docs/decisions.md item 6: the values of
// data.hcp.ext.deny and data.hcp.ext.confirm as decoded JSON (nil means
// undefined), the same for every input unless Rules is set.
type Ext struct {
	Deny, Confirm any
	// Rules, when set, gives the two values for one well-formed input, as
	// a runtime's rules that read the call do.
	Rules func(input map[string]any) (deny, confirm any)
}

// on is the layer as it stands for input doc.
func (x Ext) on(doc map[string]any) Ext {
	if x.Rules == nil {
		return x
	}
	deny, confirm := x.Rules(doc)
	return Ext{Deny: deny, Confirm: confirm}
}

// Evaluator decides calls against one model's packs and grants. New indexes
// them once so that a decision costs the same for 1 grant or 100,000 (map
// lookups, no scan over all grants or rows per decision).
type Evaluator struct {
	packs  map[string]*compile.Pack
	grants *grantIndex
	input  *schema.Schema
	shards Shards // the zero value unless WithShards
}

// New returns an evaluator for packs (each id once) and grants, in order:
// a checked compile.Model's, or, for a test of what docs/decisions.md says
// about grants that lint rejects, a compile.Sources' that were read but
// not checked. They must not change afterwards; the evaluator is safe for
// concurrent use.
func New(packs []*compile.Pack, grants []*compile.Grant) *Evaluator {
	byID := make(map[string]*compile.Pack, len(packs))
	for _, p := range packs {
		byID[p.ID] = p
	}
	return &Evaluator{
		packs:  byID,
		grants: indexGrants(grants),
		input:  schema.Get("input"),
	}
}

// The decision codes of docs/decisions.md#the-chain, in chain order.
const (
	invalidInput       = "invalid_input"
	unknownCommand     = "unknown_command"
	packUnavailable    = "pack_unavailable"
	tenantUnavailable  = "tenant_unavailable"
	capabilityRequired = "capability_required"
	landDenied         = "land_denied"
	runtimeDenied      = "runtime_denied"
	confirmRequired    = "confirm_required"
	allowed            = "allowed"
)

// conformance holds the error string of each denying code
// (docs/decisions.md#the-chain).
var conformance = map[string]string{
	invalidInput:       "invalid input",
	unknownCommand:     "unknown command",
	packUnavailable:    "pack unavailable",
	tenantUnavailable:  "tenant unavailable",
	capabilityRequired: "capability required",
	landDenied:         "land denied",
	runtimeDenied:      "denied by runtime policy",
	confirmRequired:    "confirm required",
}

// hint is what a confirm_required decision tells the agent
// (docs/decisions.md#the-decision-document).
const hint = "Nothing ran. Re-run with confirm=true only if the user has approved this exact action with these values."

// Decide returns the decision document of
// docs/decisions.md#the-decision-document for input, a decoded JSON
// value as encoding/json with UseNumber produces it (map[string]any, []any,
// json.Number, string, bool, nil). It is always defined, for any input.
func (e *Evaluator) Decide(input any, ext Ext) map[string]any {
	c, ok := readCall(input, e.input)
	if !ok {
		return verdict(invalidInput, inputProblems(input))
	}
	row := e.row(c)
	if row == nil {
		return withCall(verdict(unknownCommand, nil), c)
	}
	grant := e.grants.first(c, row.Capability())
	code, reasons := judge(c, row, e.shards.holds(c.principal), grant != nil, ext.on(input.(map[string]any)))
	if code == packUnavailable || code == tenantUnavailable {
		grant = nil // the chain stopped before the capability step
	}
	doc := withRow(withCall(verdict(code, reasons), c), row, grant)
	if code == confirmRequired {
		doc["preview"] = preview(c, row)
		doc["hint"] = hint
	}
	return doc
}

// row returns the policy row the call names, or nil.
func (e *Evaluator) row(c *call) *compile.Row {
	p := e.packs[c.packID]
	if p == nil {
		return nil
	}
	return p.Row(c.kind, c.key)
}

// judge runs the chain of docs/decisions.md#the-chain from pack_unavailable on, for a call
// whose row exists, and returns the first failing step's code with the
// runtime reasons that go with it. tenantHere says whether the grants of
// the principal's tenant are loaded (Shards.holds); held whether the
// principal holds the row's capability, counting every grant.
func judge(c *call, row *compile.Row, tenantHere, held bool, ext Ext) (string, []string) {
	switch {
	case !c.reachable:
		return packUnavailable, nil
	case !tenantHere:
		return tenantUnavailable, nil
	case !held:
		return capabilityRequired, nil
	case !landHolds(row.Land, c):
		return landDenied, nil
	}
	if Fires(ext.Deny) {
		return runtimeDenied, reasonsOf(ext.Deny)
	}
	gate, byRuntime := effectiveGate(row.Gate, ext.Confirm)
	if c.passes(gate) {
		return allowed, nil
	}
	if byRuntime {
		return confirmRequired, reasonsOf(ext.Confirm)
	}
	return confirmRequired, nil
}

// verdict starts a decision with the fields every decision has: allow,
// code, error when denied, and reasons ([] unless a runtime rule gave some).
func verdict(code string, reasons []string) map[string]any {
	doc := map[string]any{"allow": code == allowed, "code": code}
	if text, denied := conformance[code]; denied {
		doc["error"] = text
	}
	list := make([]any, len(reasons))
	for i, r := range reasons {
		list[i] = r
	}
	doc["reasons"] = list
	return doc
}

// withCall adds the call's identity: pack_id and verb_key or stimulus.
func withCall(doc map[string]any, c *call) map[string]any {
	doc["pack_id"] = c.packID
	doc[c.kind.Field()] = c.key
	return doc
}

// withRow adds the judged row's fields and the provenance of the row and,
// when the chain passed the capability step, of the first grant that gives
// it (docs/decisions.md items 2 and 3).
func withRow(doc map[string]any, row *compile.Row, grant *compile.Grant) map[string]any {
	doc["operation"] = row.Operation
	doc["land"] = row.Land
	doc["capability"] = row.Capability()
	doc["confirm"] = row.Gate.JSON()
	source := map[string]any{"row": row.Source()}
	if grant != nil {
		source["grant"] = grant.Source()
	}
	doc["source"] = source
	return doc
}
