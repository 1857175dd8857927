# Land checks (docs/decisions.md)
# Each land needs its own fact; a missing fact denies.
package hcp.authz

_land_ok if {
	_row.land == "personal"
	input.owner == input.principal.id
}

_land_ok if {
	_row.land == "brain"
	input.project_id in input.principal.projects
}

_land_ok if {
	_row.land == "local"
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
