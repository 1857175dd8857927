# Input well-formedness (docs/files.md, the decision input). Each check
# looks up the members the decision input names; none walks an object's
# members, so members the chain does not read cost a decision nothing
# beyond decoding, however many there are (docs/decisions.md).
package hcp.authz

_well_formed if {
	_shape_ok
	not _both_keys
	is_string(_call.key)
	_call.key != ""
}

# _both_keys holds when the input gives both verb_key and stimulus: a call
# names exactly one (_call takes verb_key, else stimulus, and a call
# giving neither has no key).
_both_keys if {
	_ = input.verb_key
	_ = input.stimulus
}

# _keys_given are which of verb_key and stimulus the input gives.
_keys_given := [field | some field in ["verb_key", "stimulus"]; _ = input[field]]

# _shape_ok holds when the input is well formed but for its key, which a
# listing (permissions.rego) does not carry: the principal is an object
# whose id is a string, the pack_id a string, neither empty, and no other
# member the decision input names is of another type (_mistyped).
_shape_ok if {
	is_object(input.principal)
	is_string(input.principal.id)
	input.principal.id != ""
	is_string(input.pack_id)
	input.pack_id != ""
	not _mistyped
}

# _mistyped holds when the input gives a member that the decision input
# names, or an element of one, of another type: a body a member. Each
# body binds the member first, so that a member the input does not give
# fails the body: `not is_string(input.owner)` alone would hold for an
# absent owner, as `not` holds for anything undefined. (Rule bodies cost a
# decision less than the builtin calls of
# is_string(object.get(input, "owner", "")): docs/performance.md.)
_mistyped if {
	x := input.principal.tenant
	not is_string(x)
}

_mistyped if {
	x := input.principal.roles
	not is_array(x)
}

_mistyped if {
	x := input.principal.projects
	not is_array(x)
}

_mistyped if {
	x := input.args
	not is_object(x)
}

_mistyped if {
	x := input.confirm
	not is_boolean(x)
}

_mistyped if {
	x := input.apply
	not is_boolean(x)
}

_mistyped if {
	x := input.dry_run
	not is_boolean(x)
}

_mistyped if {
	x := input.pack_reachable
	not is_boolean(x)
}

_mistyped if {
	x := input.project_id
	not is_string(x)
}

_mistyped if {
	x := input.owner
	not is_string(x)
}

_mistyped if {
	x := input.access
	not is_object(x)
}

_mistyped if {
	x := input.access.mode
	not x in {"ask", "run"}
}

_mistyped if {
	x := input.access.allow
	not is_array(x)
}

_mistyped if {
	x := input.workspace
	not is_object(x)
}

_mistyped if {
	x := input.workspace.root
	not is_string(x)
}

_mistyped if {
	x := input.workspace.paths
	not is_array(x)
}

_mistyped if {
	some x in input.principal.roles
	not is_string(x)
}

_mistyped if {
	some x in input.principal.projects
	not is_string(x)
}

_mistyped if {
	some x in input.access.allow
	not is_object(x)
}

_mistyped if {
	some x in input.workspace.paths
	not is_string(x)
}

# _input_reasons are what an invalid_input decision says is wrong with the
# input's shape, by path, sorted, at most eight (docs/decisions.md): what
# eval --explain says, without the file positions a sidecar does not have.
# Only a malformed input reaches them, and they look up members as the
# checks above do: their work is bounded by the members the input names.
_input_reasons := array.slice(sort(_shape_problems | _key_problems), 0, 8)

# _key_problems are what is wrong with the call's key, which a listing
# does not carry; _shape_problems all the rest.
_key_problems contains "top level: give exactly one of verb_key and stimulus" if {
	is_object(input)
	count(_keys_given) != 1
}

_key_problems contains sprintf("%s: must not be empty", [k]) if {
	some k in ["verb_key", "stimulus"]
	input[k] == ""
}

_key_problems contains sprintf("%s: must be a string", [k]) if {
	some k in ["verb_key", "stimulus"]
	value := input[k]
	not is_string(value)
}

_shape_problems contains "top level: must be an object" if not _input_is_object

# _input_is_object is a rule of its own: OPA (v1.22.3) answers
# `not is_object(input)` with false, not true, when the request has no
# input at all.
_input_is_object if is_object(input)

_shape_problems contains sprintf("%s: is required", [concat(".", path)]) if {
	is_object(input)
	some path in [["principal"], ["principal", "id"], ["pack_id"]]
	is_object(object.get(input, array.slice(path, 0, count(path) - 1), null))
	object.get(input, path, _missing) == _missing
}

_shape_problems contains sprintf("%s: must not be empty", [concat(".", path)]) if {
	is_object(input)
	some path in [["principal", "id"], ["pack_id"]]
	object.get(input, path, _missing) == ""
}

_shape_problems contains sprintf("%s: must be %s", [concat(".", path), _kind_text[kind]]) if {
	is_object(input)
	some [path, kind] in _input_kinds
	value := object.get(input, path, _missing)
	value != _missing
	not _of_kind(value, kind)
}

# _missing stands for a member the input does not carry: a set, which no
# JSON value is.
_missing := {"absent"}

# _input_kinds is what each member of the input but the key must be, by
# path.
_input_kinds := [
	[["principal"], "object"],
	[["principal", "id"], "string"],
	[["principal", "tenant"], "string"],
	[["principal", "roles"], "strings"],
	[["principal", "projects"], "strings"],
	[["pack_id"], "string"],
	[["args"], "object"],
	[["confirm"], "boolean"],
	[["apply"], "boolean"],
	[["dry_run"], "boolean"],
	[["pack_reachable"], "boolean"],
	[["access"], "object"],
	[["access", "mode"], "mode"],
	[["access", "allow"], "objects"],
	[["project_id"], "string"],
	[["owner"], "string"],
	[["workspace"], "object"],
	[["workspace", "root"], "string"],
	[["workspace", "paths"], "strings"],
]

_kind_text := {
	"object": "an object", "string": "a string", "boolean": "a boolean",
	"strings": "an array of strings", "objects": "an array of objects", "mode": `"ask" or "run"`,
}

_of_kind(v, "object") if is_object(v)

_of_kind(v, "string") if is_string(v)

_of_kind(v, "boolean") if is_boolean(v)

_of_kind(v, "strings") if {
	is_array(v)
	every x in v {
		is_string(x)
	}
}

_of_kind(v, "objects") if {
	is_array(v)
	every x in v {
		is_object(x)
	}
}

_of_kind(v, "mode") if v in {"ask", "run"}
