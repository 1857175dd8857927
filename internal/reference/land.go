package reference

import (
	"slices"
	"strings"
)

// landHolds reports whether the call passes the check of its row's land
// (docs/decisions.md item 5). Each land needs its own fact, and a missing
// fact denies; a land hcp-rego does not know denies too.
func landHolds(land string, c *call) bool {
	switch land {
	case "personal":
		return c.owner.given && c.owner.value == c.principal.id
	case "brain":
		return c.projectID.given && slices.Contains(c.principal.projects, c.projectID.value)
	case "local":
		return workspaceHolds(c.root, c.paths)
	}
	return false
}

// workspaceHolds reports whether root is given, absolute and clean, and
// every path is absolute, clean and at or below root.
func workspaceHolds(root fact, paths []string) bool {
	if !root.given || !isClean(root.value) {
		return false
	}
	for _, p := range paths {
		if !isClean(p) || !isBelow(p, root.value) {
			return false
		}
	}
	return true
}

// isClean reports whether p is "/" or starts with "/" and every segment
// after it is non-empty and neither "." nor "..": no trailing slash, no
// doubled slash, no relative step.
func isClean(p string) bool {
	if p == "/" {
		return true
	}
	rest, ok := strings.CutPrefix(p, "/")
	if !ok {
		return false
	}
	for seg := range strings.SplitSeq(rest, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// isBelow reports whether the clean path p is root itself or inside it:
// "/home/a/proj2" is not below "/home/a/proj", and every absolute path is
// below "/".
func isBelow(p, root string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+"/")
}
