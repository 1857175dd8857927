package explain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// describeCapability names the grant that gave the capability, or says
// why none did: the grants that name the principal's subjects on the pack
// and why each does not count, and whether default grants were on.
func describeCapability(failed bool, m *compile.Model, c call, d hcprego.Decision) []string {
	capability := d.Capability
	if !failed {
		src := d.SourceGrant
		if m == nil {
			return []string{fmt.Sprintf("%s gives %s", src, capability)}
		}
		return []string{fmt.Sprintf("%s gives %s: %s", src, capability, grantText(findGrant(m, src, c)))}
	}
	if m == nil {
		return []string{fmt.Sprintf("no grant gives %s", capability)}
	}
	row := m.Pack(c.pack).Row(c.kind, c.key)
	id, _ := str(c.principal, "id")
	tenant, hasTenant := str(c.principal, "tenant")
	who := "principal:" + id
	if roles := strs(c.principal, "roles"); len(roles) > 0 {
		who += " (roles " + strings.Join(roles, ", ") + ")"
	}
	if hasTenant {
		who += " of tenant " + tenant
	}
	out := []string{fmt.Sprintf("no grant gives %s on %s %q of pack %q to %s", row.Capability(), c.noun(), c.key, c.pack, who)}
	subjects := subjectsOf(c.principal)
	grants := m.Grants()
	for _, g := range grants {
		switch {
		case !subjects[g.Subject] || g.PackID != c.pack:
		case g.Tenant != "" && g.Tenant != tenant:
			out = append(out, fmt.Sprintf("%s does not count: it holds only for tenant %q", g.Source(), g.Tenant))
		default:
			out = append(out, fmt.Sprintf("%s does not count: %s", g.Source(), whyNot(g, row)))
		}
	}
	if namesPrincipal(grants, subjects, tenant) {
		out = append(out, "default grants are off: a principal: or role: grant applies to this principal")
	} else {
		out = append(out, "default grants are on (no principal: or role: grant applies), and none gives it")
	}
	return out
}

// subjectsOf lists the grant subjects that name a principal.
func subjectsOf(principal map[string]any) map[string]bool {
	id, _ := str(principal, "id")
	out := map[string]bool{"principal:" + id: true}
	for _, r := range strs(principal, "roles") {
		out["role:"+r] = true
	}
	return out
}

// whyNot says why a grant that names the principal on the pack does not
// give a row's capability.
func whyNot(g *compile.Grant, row *compile.Row) string {
	if why := missing(g, row); why != "" {
		return why
	}
	return "it would count; this is a bug, please report it"
}

// missing says what a grant on the row's pack lacks to give the row's
// capability, or "" when it gives it.
func missing(g *compile.Grant, row *compile.Row) string {
	switch {
	case g.VerbKey != "" && (row.Kind != compile.Verb || g.VerbKey != row.Key):
		return fmt.Sprintf("it is scoped to verb_key %q", g.VerbKey)
	case g.Stimulus != "" && (row.Kind != compile.Stimulus || g.Stimulus != row.Key):
		return fmt.Sprintf("it is scoped to stimulus %q", g.Stimulus)
	case !slices.Contains(g.Capabilities, row.Capability()):
		return fmt.Sprintf("it gives %s, not %s", strings.Join(g.Capabilities, ", "), row.Capability())
	}
	return ""
}

func findGrant(m *compile.Model, source string, c call) *compile.Grant {
	// Several grants can stand on one line: the one that gave the
	// capability applies to the principal (or is a default) and covers
	// the row.
	var row *compile.Row
	if p := m.Pack(c.pack); p != nil {
		row = p.Row(c.kind, c.key)
	}
	subjects := subjectsOf(c.principal)
	tenant, _ := str(c.principal, "tenant")
	grants := m.Grants()
	defaults := !namesPrincipal(grants, subjects, tenant)
	var first *compile.Grant
	for _, g := range grants {
		if g.Source() != source {
			continue
		}
		if first == nil {
			first = g
		}
		applies := (subjects[g.Subject] || g.Subject == "default" && defaults) && (g.Tenant == "" || g.Tenant == tenant)
		if applies && g.PackID == c.pack && row != nil && missing(g, row) == "" {
			return g
		}
	}
	return first
}

// namesPrincipal reports whether one of the grants, a principal: or role:
// grant, applies to the principal in any pack, which turns default grants
// off (docs/decisions.md item 4).
func namesPrincipal(grants []*compile.Grant, subjects map[string]bool, tenant string) bool {
	for _, g := range grants {
		if subjects[g.Subject] && (g.Tenant == "" || g.Tenant == tenant) {
			return true
		}
	}
	return false
}

// grantText renders a grant as its subject, scope and capabilities.
func grantText(g *compile.Grant) string {
	if g == nil {
		return "(grant not found)"
	}
	s := g.Subject
	if g.Tenant != "" {
		s += " of tenant " + g.Tenant
	}
	s += ", pack " + g.PackID
	switch {
	case g.VerbKey != "":
		s += ", verb_key " + g.VerbKey
	case g.Stimulus != "":
		s += ", stimulus " + g.Stimulus
	}
	return s + ", capabilities " + strings.Join(g.Capabilities, ", ")
}
