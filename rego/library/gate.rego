# Runtime layer (docs/bundles.md, "Beside a runtime bundle") and confirm gate
# (docs/decisions.md)
package hcp.authz

# A runtime rule fires unless it is undefined, false, null or an empty
# collection; anything else fires (fail closed), and its reasons are the
# members of a set or array, the keys of an object, or the value itself.
_deny_reasons := _reasons(data.hcp.ext.deny)

_confirm_reasons := _reasons(data.hcp.ext.confirm)

_runtime_gate if _confirm_reasons != []

# _reasons makes each reason's text (a string as is, anything else as
# JSON) in the comprehensions, never by a function given the value: OPA
# caches a function's results by its arguments, compared as OPA compares
# numbers, so a function given 12.50 would be served what it gave for
# 12.500000000000000010. (The two rules' values can share an answer so
# only when neither fires.) The rules are named, not looked up by a
# variable, so that a runtime's deny that is not a value (a function) is a
# type error, never a rule passed over.
_reasons(v) := [] if {
	v in {false, null}
} else := sort({x | some x in v; is_string(x)} | {json.marshal(x) | some x in v; not is_string(x)}) if {
	_is_list(v)
} else := sort({k | some k, _ in v; is_string(k)} | {json.marshal(k) | some k, _ in v; not is_string(k)}) if {
	is_object(v)
} else := [v] if {
	is_string(v)
} else := [json.marshal(v)]

_is_list(v) if is_array(v)

_is_list(v) if is_set(v)

# The gate passes when the row has none and no runtime rule adds one; a
# "true" gate (the row's, or a runtime's) in mode run; confirm or apply; or
# an exact allow rule. "always" passes only the last three.
_gate_passed if {
	_row.confirm == false
	not _runtime_gate
}

_gate_passed if {
	input.access.mode == "run"
	_row.confirm != "always"
}

_gate_passed if input.confirm == true

_gate_passed if input.apply == true

_gate_passed if {
	some i, _ in input.access.allow
	_allow_rule_matches(i)
}

# _confirm_refusal is what a call the gate stops adds to the granted
# fields: the refusal, the reasons, the preview and the hint. It is one
# object, written out, because this step runs on every confirm_required
# call: a function call and a second object.union cost it 5% more
# evaluation.
_confirm_refusal := {
	"allow": false,
	"code": "confirm_required",
	"error": "confirm required",
	"reasons": _gate_reasons,
	"preview": _preview,
	"hint": "Nothing ran. Re-run with confirm=true only if the user has approved this exact action with these values.",
}

# The reasons of a confirm_required are the runtime's when its rule, not
# the row, put the gate there.
default _gate_reasons := []

_gate_reasons := _confirm_reasons if _row.confirm == false
