package explain

import (
	"fmt"
	"path"
	"slices"
	"strings"

	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// describeLand says which land fact the row needed and what the input
// gave for it.
func describeLand(c call, d hcprego.Decision) []string {
	land := d.Land
	id, _ := str(c.principal, "id")
	switch land {
	case "personal":
		owner, ok := str(c.input, "owner")
		switch {
		case !ok:
			return []string{"personal land: owner is missing"}
		case owner != id:
			return []string{fmt.Sprintf("personal land: owner %q is not the principal %q", owner, id)}
		}
		return []string{fmt.Sprintf("personal land: owner %q is the principal", owner)}
	case "brain":
		project, ok := str(c.input, "project_id")
		switch {
		case !ok:
			return []string{"brain land: project_id is missing"}
		case !slices.Contains(strs(c.principal, "projects"), project):
			return []string{fmt.Sprintf("brain land: project %q is not in principal.projects", project)}
		}
		return []string{fmt.Sprintf("brain land: project %q is one of the principal's", project)}
	}
	return describeLocal(c)
}

func describeLocal(c call) []string {
	ws, _ := c.input["workspace"].(map[string]any)
	root, ok := str(ws, "root")
	switch {
	case !ok:
		return []string{"local land: workspace.root is missing"}
	case !clean(root):
		return []string{fmt.Sprintf("local land: workspace.root %q is not absolute and clean", root)}
	}
	out := []string{fmt.Sprintf("local land: workspace.root %q", root)}
	for _, p := range strs(ws, "paths") {
		switch {
		case !clean(p):
			out = append(out, fmt.Sprintf("path %q is not absolute and clean", p))
		case p != root && !strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/"):
			out = append(out, fmt.Sprintf("path %q is not below the root", p))
		default:
			out = append(out, fmt.Sprintf("path %q is below the root", p))
		}
	}
	return out
}

// clean reports whether a path is absolute with no ".", ".." or empty
// segment.
func clean(p string) bool { return strings.HasPrefix(p, "/") && path.Clean(p) == p }
