package rego

import (
	"context"
	"fmt"

	oparego "github.com/open-policy-agent/opa/v1/rego"
)

// PermissionsQuery is the query of a listing
// (docs/permissions.md#the-query), as an operator's
// console asks a sidecar.
const PermissionsQuery = "data.hcp.authz.permissions"

const permissionsQuery = "permissions := " + PermissionsQuery

// Permissions is what the input's principal may do in its pack: Doc as
// the library returned it, which `hcp-rego permissions` prints, and its
// members decoded once. It is for operators: the agent is never told its
// permissions (docs/permissions.md).
type Permissions struct {
	Doc map[string]any

	Code    string // "ok", "invalid_input" or "unknown_pack"
	PackID  string // "" for invalid input
	Reasons []any  // what is wrong with an invalid_input's input, by path
	Verbs   map[string]Permission
	Stimuli map[string]Permission
}

// Permission is one command's or trigger's entry: the code, capability,
// source and reasons of the decision a call of it with no args, confirm,
// apply or allow rule gets, and the disposition a harness would show.
type Permission struct {
	Disposition string // "allow", "ask" or "deny"
	Code        string
	Capability  string
	SourceRow   string
	SourceGrant string // "" when the chain stopped before the capability held
	Reasons     []any
}

// Permissions lists what the principal of input, a decoded JSON value,
// may do in its pack, in one evaluation.
func (e *Evaluator) Permissions(ctx context.Context, input any) (*Permissions, error) {
	rs, err := e.listing.Eval(ctx, oparego.EvalInput(input))
	if err != nil {
		return nil, fmt.Errorf("evaluate permissions: %w", err)
	}
	if len(rs) != 1 {
		return nil, fmt.Errorf("evaluate permissions: %d results, want 1 (the library must define permissions for every input)", len(rs))
	}
	doc, ok := rs[0].Bindings["permissions"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("evaluate permissions: not an object: %v", rs[0].Bindings["permissions"])
	}
	return permissionsOf(doc), nil
}

// permissionsOf decodes a listing; members of another type read as absent.
func permissionsOf(doc map[string]any) *Permissions {
	p := &Permissions{Doc: doc}
	p.Code, _ = doc["code"].(string)
	p.PackID, _ = doc["pack_id"].(string)
	p.Reasons, _ = doc["reasons"].([]any)
	p.Verbs = entriesOf(doc["verbs"])
	p.Stimuli = entriesOf(doc["stimuli"])
	return p
}

func entriesOf(v any) map[string]Permission {
	m, _ := v.(map[string]any)
	out := make(map[string]Permission, len(m))
	for key, e := range m {
		doc, _ := e.(map[string]any)
		d := DecisionOf(doc)
		p := Permission{Code: d.Code, Capability: d.Capability, SourceRow: d.SourceRow, SourceGrant: d.SourceGrant, Reasons: d.Reasons}
		p.Disposition, _ = doc["disposition"].(string)
		out[key] = p
	}
	return out
}
