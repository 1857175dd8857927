package rego

import (
	"context"
	"errors"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	oparego "github.com/open-policy-agent/opa/v1/rego"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// layerQuery asks for the runtime layer's two values (docs/decisions.md
// item 6), each [] when undefined.
const layerQuery = "deny := [x | x := data.hcp.ext.deny]; confirm := [x | x := data.hcp.ext.confirm]"

// Layer is a runtime's hcp.ext rules evaluated alone, without the
// decision library, the packs or the grants: what they give is the same
// whichever version of the policy they are loaded beside, as `hcp-rego
// compare` needs (docs/compare.md). Values is safe for concurrent use.
type Layer struct {
	prepared oparego.PreparedEvalQuery
}

// NewLayer prepares the runtime rules that ReadExt read. It refuses a rule
// that reads the policy's own data: data.hcp_packs, data.hcp_grants,
// anything under data.hcp but hcp.ext, or data by a computed name. Such a
// rule would differ from one version of the policy to the other, and then
// it could make a change wider that is not.
func NewLayer(ctx context.Context, opts []Option) (*Layer, error) {
	var errs problem.Errors
	var mods []*ast.Module
	for _, o := range opts {
		mod := o.parsed
		if mod == nil {
			if o.source == "" {
				continue // WithRuntimeGate
			}
			parsed, err := ast.ParseModuleWithOpts(o.name, o.source, ast.ParserOptions{RegoVersion: ast.RegoV1})
			if err != nil {
				errs.Merge(o.name, problem.OPAErrors(o.name, err))
				continue
			}
			mod = parsed
		}
		for _, ref := range policyReads(mod) {
			loc := ref[0].Location
			pos := problem.Pos{}
			if loc != nil {
				pos = problem.Pos{Line: loc.Row, Col: loc.Col}
			}
			errs.Add(o.name, pos, "%s reads the policy's own data, which differs between the versions compared: a runtime rule may read the input and its own rules (hcp.ext)", ref)
		}
		mods = append(mods, mod)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	args := []func(*oparego.Rego){oparego.Query(layerQuery), oparego.SetRegoVersion(ast.RegoV1)}
	for _, m := range mods {
		args = append(args, oparego.ParsedModule(m))
	}
	prepared, err := oparego.New(args...).PrepareForEval(ctx)
	var compileErrs ast.Errors
	if errors.As(err, &compileErrs) {
		return nil, problem.OPAErrors("", compileErrs)
	}
	if err != nil {
		return nil, fmt.Errorf("prepare the runtime layer: %w", err)
	}
	return &Layer{prepared: prepared}, nil
}

// Values returns data.hcp.ext.deny and data.hcp.ext.confirm for input, as
// decoded JSON (a set as an array), nil when undefined.
func (l *Layer) Values(ctx context.Context, input map[string]any) (deny, confirm any, err error) {
	rs, err := l.prepared.Eval(ctx, oparego.EvalInput(input))
	if err != nil {
		return nil, nil, fmt.Errorf("evaluate the runtime layer: %w", err)
	}
	if len(rs) != 1 {
		return nil, nil, fmt.Errorf("evaluate the runtime layer: %d results, want 1", len(rs))
	}
	return only(rs[0].Bindings["deny"]), only(rs[0].Bindings["confirm"]), nil
}

// only is the value of a comprehension of at most one value, nil for none.
func only(v any) any {
	if list, _ := v.([]any); len(list) == 1 {
		return list[0]
	}
	return nil
}

// policyReads lists the references of mod that read data outside
// hcp.ext and the runtime's other roots: data itself, data by a computed
// name, data.hcp_packs, data.hcp_grants, and data.hcp itself or below it
// but for hcp.ext.
func policyReads(mod *ast.Module) []ast.Ref {
	var out []ast.Ref
	ast.WalkRefs(mod, func(ref ast.Ref) bool {
		if !ref.HasPrefix(ast.DefaultRootRef) || readsOwnRoot(ref) {
			return false
		}
		out = append(out, ref)
		return false
	})
	return out
}

// readsOwnRoot reports whether a ref into data reads hcp.ext or a root
// that is neither the policy's nor computed.
func readsOwnRoot(ref ast.Ref) bool {
	if len(ref) < 2 {
		return false
	}
	root, ok := ref[1].Value.(ast.String)
	switch {
	case !ok:
		return false
	case root == "hcp_packs", root == "hcp_grants":
		return false
	case root != "hcp":
		return true
	}
	if len(ref) < 3 {
		return false
	}
	ext, ok := ref[2].Value.(ast.String)
	return ok && ext == "ext"
}
