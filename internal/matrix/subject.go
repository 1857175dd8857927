package matrix

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/markdown"
	"github.com/hcp-rego/hcp-rego/internal/printable"
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
// holds just that subject, of tenant when it is not empty. named are the
// ids that principal: grants name, which the id of a column of no
// principal: subject must not be.
func principalsFor(named map[string]bool, subjects []string, tenant string) ([]map[string]any, error) {
	synthetic := unnamedID(named)
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

// principalIDs are the ids that the principal: grants of m name.
func principalIDs(m *compile.Model) map[string]bool {
	named := map[string]bool{}
	for _, g := range m.Grants() {
		if id, ok := strings.CutPrefix(g.Subject, "principal:"); ok {
			named[id] = true
		}
	}
	return named
}

// unnamedID returns a principal id that is not among named.
func unnamedID(named map[string]bool) string {
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

// TenantNote says that some grants hold only for a tenant that the
// matrix's principals are not of, so that they count in no cell.
type TenantNote struct {
	Tenant string
	// Grants are each grant's file:line, in file order; none when the
	// grants are read from a bundle's tables, which do not list them.
	Grants []string
}

// Text is the note as a line for a person, every name printable.
func (n TenantNote) Text() string {
	if len(n.Grants) == 0 {
		return fmt.Sprintf("note: grants hold only for tenant %q and count in no cell (--tenant %s counts them)", n.Tenant, printable.Quote(n.Tenant))
	}
	where := make([]string, len(n.Grants))
	for i, g := range n.Grants {
		where[i] = printable.Quote(g)
	}
	words := "%d grants hold only for tenant %q and count in no cell (--tenant %s counts them): %s"
	if len(where) == 1 {
		words = "%d grant holds only for tenant %q and counts in no cell (--tenant %s counts it): %s"
	}
	return fmt.Sprintf("note: "+words, len(where), n.Tenant, printable.Quote(n.Tenant), strings.Join(where, ", "))
}

// Markdown is the note for a pull request comment: the tenant and each
// grant a code span.
func (n TenantNote) Markdown() string {
	if len(n.Grants) == 0 {
		return fmt.Sprintf("**note:** grants hold only for tenant %s and count in no cell (`--tenant` counts them)", markdown.Code(n.Tenant))
	}
	where := make([]string, len(n.Grants))
	for i, g := range n.Grants {
		where[i] = markdown.Code(g)
	}
	grants := fmt.Sprintf("%d grants hold", len(where))
	if len(where) == 1 {
		grants = "1 grant holds"
	}
	return fmt.Sprintf("**note:** %s only for tenant %s and count in no cell (`--tenant` counts them): %s", grants, markdown.Code(n.Tenant), strings.Join(where, ", "))
}

// TenantNotesOf are the notes for a matrix of m's principals of tenant,
// by tenant.
func TenantNotesOf(m *compile.Model, tenant string) []TenantNote {
	byTenant := TenantOnly(m, tenant)
	var notes []TenantNote
	for _, t := range slices.Sorted(maps.Keys(byTenant)) {
		n := TenantNote{Tenant: t}
		for _, g := range byTenant[t] {
			n.Grants = append(n.Grants, fmt.Sprintf("%s:%d", g.File, g.Line))
		}
		notes = append(notes, n)
	}
	return notes
}

// OnlyForTenants returns the tenants that the grants of subject hold for
// when every one of them holds only for some tenant, and nil when the
// subject has a grant that holds for every tenant, or none: then a
// principal of no tenant gets nothing the subject is granted.
func OnlyForTenants(m *compile.Model, subject string) []string {
	var tenants []string
	for _, g := range m.Grants() {
		if g.Subject != subject {
			continue
		}
		if g.Tenant == "" {
			return nil
		}
		if !slices.Contains(tenants, g.Tenant) {
			tenants = append(tenants, g.Tenant)
		}
	}
	slices.Sort(tenants)
	return tenants
}
