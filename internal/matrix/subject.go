package matrix

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hcp-rego/hcp-rego/compile"
)

// Default is the subject of default grants, and the column of a principal
// that no grant names.
const Default = "default"

// syntheticID is the principal id of a role: or default column, when no
// principal: grant names it (else a numbered variant is used).
const syntheticID = "hcp-rego-matrix"

// The land facts every synthetic call carries, so that no land check
// denies: owner is the principal's id, project_id is in its projects, and
// the workspace has a clean root and a path below it.
const (
	landProject = "hcp-rego-matrix-project"
	landRoot    = "/hcp-rego-matrix"
	landPath    = "/hcp-rego-matrix/file"
)

// Subjects lists every principal: and role: subject that the grants of m
// name, in the order they first appear (grant files in the order given,
// grants in file order), then Default.
func Subjects(m *compile.Model) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range m.Grants() {
		if g.Subject == Default || seen[g.Subject] {
			continue
		}
		seen[g.Subject] = true
		out = append(out, g.Subject)
	}
	return append(out, Default)
}

// CheckSubject reports whether s is a well-formed subject: "default",
// "principal:ID" or "role:NAME" with a non-empty ID or NAME.
func CheckSubject(s string) error {
	if s == Default {
		return nil
	}
	for _, prefix := range []string{"principal:", "role:"} {
		if name, ok := strings.CutPrefix(s, prefix); ok && name != "" {
			return nil
		}
	}
	return fmt.Errorf("subject %q: want principal:ID, role:NAME or default", s)
}

// principalsFor builds the principal of each subject's column: one that
// holds just that subject, of tenant when it is not empty.
func principalsFor(m *compile.Model, subjects []string, tenant string) ([]map[string]any, error) {
	synthetic := unnamedID(m)
	out := make([]map[string]any, len(subjects))
	seen := map[string]bool{}
	for i, s := range subjects {
		if err := CheckSubject(s); err != nil {
			return nil, err
		}
		if seen[s] {
			return nil, fmt.Errorf("subject %q given twice", s)
		}
		seen[s] = true
		p := map[string]any{"id": synthetic, "roles": []any{}, "projects": []any{landProject}}
		if id, ok := strings.CutPrefix(s, "principal:"); ok {
			p["id"] = id
		}
		if role, ok := strings.CutPrefix(s, "role:"); ok {
			p["roles"] = []any{role}
		}
		if tenant != "" {
			p["tenant"] = tenant
		}
		out[i] = p
	}
	return out, nil
}

// unnamedID returns a principal id that no principal: grant of m names.
func unnamedID(m *compile.Model) string {
	named := map[string]bool{}
	for _, g := range m.Grants() {
		if id, ok := strings.CutPrefix(g.Subject, "principal:"); ok {
			named[id] = true
		}
	}
	id := syntheticID
	for n := 2; named[id]; n++ {
		id = syntheticID + "-" + strconv.Itoa(n)
	}
	return id
}

// TenantOnly returns, by tenant, the grants of m that hold only for a
// tenant other than the given one: they count for no cell of a matrix of
// that tenant, which a command should tell its user.
func TenantOnly(m *compile.Model, tenant string) map[string][]*compile.Grant {
	out := map[string][]*compile.Grant{}
	for _, g := range m.Grants() {
		if g.Tenant != "" && g.Tenant != tenant {
			out[g.Tenant] = append(out[g.Tenant], g)
		}
	}
	return out
}
