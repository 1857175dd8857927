package compare

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/compile"
)

// Example is one call that the two versions decide differently, and each
// version's decision of it.
type Example struct {
	Call     Call
	Old, New Decision
	// Masked is set when the runtime layer (Options.Layer) denies or
	// confirms every call compare tried for the key, on both versions,
	// so that they decide alike with it: Old and New are then decided
	// without the layer, which shows the difference in the policy itself.
	Masked bool
}

// Decision is what an example shows of a version's decision: its
// disposition, code and provenance (source.row, source.grant; "" when
// absent).
type Decision struct {
	Allow bool
	Code  string
	Row   string
	Grant string
}

// Disposition is the decision's disposition.
func (d Decision) Disposition() Disposition { return dispositionOf(d.Code) }

// Call is an example's call, as few values: Input writes it out as a
// complete decision input. A report of every key of a large repository
// holds one or two a key, so they stay small.
type Call struct {
	Key
	ID     string
	Tenant string // "" for a principal without one
	Roles  []string
	// Lands is the set of land facts that hold (1 personal, 2 brain, 4
	// local); each other land's fact is given and fails.
	Lands    uint8
	Approval approval
}

// Mode is the call's access.mode.
func (c Call) Mode() string {
	if c.Approval == approveRun {
		return "run"
	}
	return "ask"
}

// Confirm reports whether the call carries confirm: true.
func (c Call) Confirm() bool { return c.Approval == approveConfirm }

// LandHolds reports whether the call's fact for land holds.
func (c Call) LandHolds(land string) bool { return c.Lands&landBits[land] != 0 }

// Facts that the examples give the principal and the call: a project it
// is in and one it is not, and a workspace root with a path inside it and
// one outside.
const (
	ownProject   = "project-1"
	otherProject = "project-2"
	root         = "/workspace"
	inside       = "/workspace/file.txt"
	outside      = "/elsewhere/file.txt"
)

// Input is the call's complete decision input
// (docs/files.md#the-decision-input), as decoded
// JSON: every member given, so that it decides alike wherever it is sent.
// It is Document's value, member for member, so that what is decided is
// what is printed (TestInputIsDocument).
func (c Call) Input() map[string]any {
	d := c.Document()
	principal := map[string]any{"id": d.Principal.ID, "roles": anyStrings(d.Principal.Roles), "projects": anyStrings(d.Principal.Projects)}
	if d.Principal.Tenant != "" {
		principal["tenant"] = d.Principal.Tenant
	}
	in := map[string]any{
		"principal":      principal,
		"pack_id":        d.PackID,
		"args":           map[string]any{},
		"confirm":        d.Confirm,
		"apply":          d.Apply,
		"access":         map[string]any{"mode": d.Access.Mode, "allow": []any{}},
		"project_id":     d.ProjectID,
		"owner":          d.Owner,
		"workspace":      map[string]any{"root": d.Workspace.Root, "paths": anyStrings(d.Workspace.Paths)},
		"pack_reachable": d.Reachable,
	}
	if d.Stimulus != "" {
		in["stimulus"] = d.Stimulus
	} else {
		in["verb_key"] = d.VerbKey
	}
	return in
}

// anyStrings is a list of strings as decoded JSON holds it.
func anyStrings(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// Document is the call's input as it is printed, its members in the
// order of the example input of docs/files.md#the-decision-input.
func (c Call) Document() InputDocument {
	d := InputDocument{
		Principal: PrincipalDocument{ID: c.ID, Tenant: c.Tenant, Roles: append([]string{}, c.Roles...), Projects: []string{ownProject}},
		PackID:    c.Pack,
		Args:      map[string]any{},
		Confirm:   c.Confirm(),
		Access:    AccessDocument{Mode: c.Mode(), Allow: []any{}},
		ProjectID: ownProject,
		Owner:     c.ID,
		Workspace: WorkspaceDocument{Root: root, Paths: []string{inside}},
		Reachable: true,
	}
	if c.Kind == compile.Stimulus {
		d.Stimulus = c.Key.Key
	} else {
		d.VerbKey = c.Key.Key
	}
	if !c.LandHolds("personal") {
		d.Owner = otherOwner(c.ID)
	}
	if !c.LandHolds("brain") {
		d.ProjectID = otherProject
	}
	if !c.LandHolds("local") {
		d.Workspace.Paths = []string{outside}
	}
	return d
}

// InputDocument is a decision input as an example prints it.
type InputDocument struct {
	Principal PrincipalDocument `json:"principal"`
	PackID    string            `json:"pack_id"`
	VerbKey   string            `json:"verb_key,omitempty"`
	Stimulus  string            `json:"stimulus,omitempty"`
	Args      map[string]any    `json:"args"`
	Confirm   bool              `json:"confirm"`
	Apply     bool              `json:"apply"`
	Access    AccessDocument    `json:"access"`
	ProjectID string            `json:"project_id"`
	Owner     string            `json:"owner"`
	Workspace WorkspaceDocument `json:"workspace"`
	Reachable bool              `json:"pack_reachable"`
}

// PrincipalDocument is an example's principal.
type PrincipalDocument struct {
	ID       string   `json:"id"`
	Tenant   string   `json:"tenant,omitempty"`
	Roles    []string `json:"roles"`
	Projects []string `json:"projects"`
}

// AccessDocument is an example's access member.
type AccessDocument struct {
	Mode  string `json:"mode"`
	Allow []any  `json:"allow"`
}

// WorkspaceDocument is an example's workspace member.
type WorkspaceDocument struct {
	Root  string   `json:"root"`
	Paths []string `json:"paths"`
}

// otherOwner is an owner that is not id.
func otherOwner(id string) string {
	if id == "someone-else" {
		return "someone-else-2"
	}
	return "someone-else"
}

// callOf makes the call of class c for key k by a principal of class w:
// an id of w's id type (one no grant names for type 0), w's tenant, and a
// role of each of w's role types.
func (s *keyScan) callOf(k Key, w witness, c combo) (Call, error) {
	call := Call{Key: k, ID: s.u.freeID, Tenant: s.u.names.tenantsOf[w.tenant], Lands: c.lands, Approval: c.approval}
	if w.id != 0 {
		subj, ok := s.subjectOf(0, w.id, w.tenant)
		if !ok {
			return Call{}, fmt.Errorf("no id of type %04b for tenant %q", w.id, call.Tenant)
		}
		call.ID = strings.TrimPrefix(s.u.names.subjectsOf[subj], "principal:")
	}
	for m := w.roles; m != 0; m &= m - 1 {
		t := uint8(bits.TrailingZeros16(m))
		subj, ok := s.subjectOf(1, t, w.tenant)
		if !ok {
			return Call{}, fmt.Errorf("no role of type %04b for tenant %q", t, call.Tenant)
		}
		call.Roles = append(call.Roles, strings.TrimPrefix(s.u.names.subjectsOf[subj], "role:"))
	}
	slices.Sort(call.Roles)
	return call, nil
}

// subjectOf finds a subject of kind (0 id, 1 role) whose type for the key
// scanned is t, for a principal of tenant: among those that cover the
// key when t covers, else among those that tenant raises and then those
// named without a tenant. Only the candidates that cover the key or that
// the tenant raises can fail the test, so the search is short.
func (s *keyScan) subjectOf(kind int, t uint8, tenant int32) (int32, bool) {
	var candidates []int32
	if t&(coversOld|coversNew) != 0 {
		for subj := range s.noneCover {
			candidates = append(candidates, subj)
		}
		for subj := range s.tenCover[tenant] {
			candidates = append(candidates, subj)
		}
		slices.Sort(candidates)
	} else {
		a := t&namedOld/namedOld | t&namedNew/namedNew<<1
		candidates = append(candidates, s.u.tenants[tenant].raised...)
		candidates = append(candidates, s.u.alpha[kind][a]...)
	}
	for _, subj := range candidates {
		if s.u.kindOf(subj) == kind && s.typeUnder(subj, tenant) == t {
			return subj, true
		}
	}
	return 0, false
}
