# Land checks (docs/decisions.md)
# Each land needs its own fact; a missing fact denies.
package hcp.authz

# _land_holds holds when the input gives the fact that land needs: a
# function of the land, so that a listing (permissions.rego) checks each
# land once for all the pack's commands.
_land_holds("personal") if input.owner == input.principal.id

_land_holds("brain") if input.project_id in input.principal.projects

_land_holds("local") if {
	root := input.workspace.root
	_clean_path(root)
	every path in object.get(input.workspace, "paths", []) {
		_clean_path(path)
		_below(path, root)
	}
}

# _clean_path holds for "/" and for "/"-rooted paths whose every segment is
# non-empty and neither "." nor "..".
_clean_path("/")

_clean_path(path) if {
	startswith(path, "/")
	every segment in split(substring(path, 1, -1), "/") {
		not segment in {"", ".", ".."}
	}
}

_below(path, root) if path == root

_below(path, root) if startswith(path, concat("", [trim_suffix(root, "/"), "/"]))
