# Input well-formedness (docs/files.md, the decision input), in one rule body without helper rules
# or functions, which cost more than the checks themselves: for each
# object, one comprehension lists the known members whose type is wrong,
# and element checks run only over arrays that are present (a
# comprehension over an absent member is empty).
package hcp.authz

_well_formed if {
	[k |
		some k, v in input
		want := {
			"principal": "object", "pack_id": "string", "verb_key": "string", "stimulus": "string",
			"args": "object", "confirm": "boolean", "apply": "boolean", "dry_run": "boolean",
			"pack_reachable": "boolean", "access": "object", "project_id": "string", "owner": "string",
			"workspace": "object",
		}[k]
		type_name(v) != want
	] == []
	[k |
		some k, v in input.principal
		want := {"id": "string", "tenant": "string", "roles": "array", "projects": "array"}[k]
		type_name(v) != want
	] == []
	input.principal.id != ""
	input.pack_id != ""
	[1 | _ = input.verb_key; _ = input.stimulus] == []
	_call.key != ""
	[x | some x in input.principal.roles; not is_string(x)] == []
	[x | some x in input.principal.projects; not is_string(x)] == []
	[k | some k, v in input.access; want := {"mode": "string", "allow": "array"}[k]; type_name(v) != want] == []
	[m | m := input.access.mode; not {"ask": true, "run": true}[m]] == []
	[r | some r in input.access.allow; not is_object(r)] == []
	[k | some k, v in input.workspace; want := {"root": "string", "paths": "array"}[k]; type_name(v) != want] == []
	[p | some p in input.workspace.paths; not is_string(p)] == []
}
