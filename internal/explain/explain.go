// Package explain walks the chain of docs/decisions.md#the-chain for one
// decision in source terms, for `hcp-rego eval --explain`: what each step
// saw, which grant (file:line) gave the capability or that none did, which
// land fact was missing, which allow rule matched and why another did not.
//
// The verdict of every step comes from the decision the library returned
// (its code says where the chain stopped); this package only describes the
// facts each step looked at, from the model and the input.
package explain

import (
	"errors"
	"fmt"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/schema"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// Status says what happened at a step.
type Status string

// The statuses of a step.
const (
	Passed     Status = "ok"
	Failed     Status = "STOP"
	NotReached Status = "-"
)

// Step is one step of the chain.
type Step struct {
	Name   string   `json:"step"`
	Status Status   `json:"status"`
	Detail []string `json:"detail,omitempty"`
}

// chain lists the steps in order, with the code each one denies with.
var chain = []struct{ name, code string }{
	{"input", "invalid_input"},
	{"row", "unknown_command"},
	{"reachable", "pack_unavailable"},
	{"tenant", "tenant_unavailable"},
	{"capability", "capability_required"},
	{"land", "land_denied"},
	{"runtime", "runtime_denied"},
	{"confirm", "confirm_required"},
}

// Explain describes each step of the chain for input, whose decision is
// given, with the reasons of the runtime's confirm rule when it put a gate
// on the call (hcprego.Result.RuntimeConfirm: an allowed decision carries
// none). problems are the input's schema violations (for the input step).
// m may be nil (a bundle evaluated as built): the steps then say only what
// the decision itself carries.
func Explain(m *compile.Model, input any, decision hcprego.Decision, runtimeConfirm []any, problems []string) []Step {
	return ExplainSharded(bundles.Sharding{}, m, input, decision, runtimeConfirm, problems)
}

// ExplainSharded is Explain for a policy whose sharding is sh
// (bundles.ShardingOf the bundle decided with): the tenant step names the
// principal's tenant's shard and the shards loaded.
func ExplainSharded(sh bundles.Sharding, m *compile.Model, input any, decision hcprego.Decision, runtimeConfirm []any, problems []string) []Step {
	code := decision.Code
	c := readCall(input)
	steps := make([]Step, len(chain))
	stopped := false
	for i, s := range chain {
		st := Step{Name: s.name, Status: Passed}
		switch {
		case stopped:
			st.Status = NotReached
		case s.code == code:
			st.Status, stopped = Failed, true
		}
		if st.Status != NotReached {
			st.Detail = describe(s.name, st.Status == Failed, sh, m, c, decision, runtimeConfirm, problems)
		}
		steps[i] = st
	}
	return steps
}

// describe says what one step saw.
func describe(step string, failed bool, sh bundles.Sharding, m *compile.Model, c call, d hcprego.Decision, runtimeConfirm []any, problems []string) []string {
	switch step {
	case "input":
		if failed {
			return problems
		}
		return []string{"well formed"}
	case "row":
		return describeRow(failed, m, c, d)
	case "reachable":
		if failed {
			return []string{"pack_reachable is false"}
		}
		return []string{"pack_reachable is not false"}
	case "tenant":
		return describeTenant(failed, sh, c)
	case "capability":
		return describeCapability(failed, m, c, d)
	case "land":
		return describeLand(c, d)
	case "runtime":
		return describeRuntime(failed, d)
	}
	return describeGate(failed, c, d, runtimeConfirm)
}

func describeRow(failed bool, m *compile.Model, c call, d hcprego.Decision) []string {
	if m == nil {
		return []string{fmt.Sprintf("%s %q of pack %q: %s", c.noun(), c.key, c.pack, rowOf(d, failed))}
	}
	if failed {
		if m.Pack(c.pack) == nil {
			return []string{fmt.Sprintf("no pack %q among the compiled packs", c.pack)}
		}
		return []string{fmt.Sprintf("pack %q has no %s %q", c.pack, c.noun(), c.key)}
	}
	row := m.Pack(c.pack).Row(c.kind, c.key)
	return []string{fmt.Sprintf("%s %q of pack %q: %s, land %s, confirm %v, needs %s (%s)",
		c.noun(), c.key, c.pack, row.Operation, row.Land, row.Gate.JSON(), row.Capability(), row.Source())}
}

func describeRuntime(failed bool, d hcprego.Decision) []string {
	if failed {
		return []string{fmt.Sprintf("data.hcp.ext.deny fires: %v", d.Reasons)}
	}
	return []string{"no runtime rule denies (data.hcp.ext.deny is undefined or empty)"}
}

// rowOf describes the row from the decision alone.
func rowOf(d hcprego.Decision, failed bool) string {
	if failed {
		return "no such row in the bundle"
	}
	return fmt.Sprintf("%s, land %s, confirm %v, needs %s (%s)", d.Operation, d.Land, d.Confirm, d.Capability, d.SourceRow)
}

// InputProblems lists an input's schema violations (hcp-rego schema
// input), positioned in file, for the walk's first step.
func InputProblems(file string, root *document.Node) []string {
	err := schema.Get("input").Validate(file, root)
	var errs problem.Errors
	if !errors.As(err, &errs) {
		return []string{"the input is not well formed"}
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}
