# Runtime layer (SPEC §4.2) and confirm gate (SPEC §3.4)
package hcp.authz

# A runtime rule fires unless it is undefined, false, null or an empty
# collection; anything else fires (fail closed), and its reasons are the
# members of a set or array, the keys of an object, or the value itself.
_deny_reasons := _reasons("deny")

_confirm_reasons := _reasons("confirm")

_runtime_gate if _confirm_reasons != []

# _reasons takes the rule's name, not its value: OPA caches a function's
# results by its arguments, compared as OPA compares numbers, so a value
# holding 12.50 would be served the reasons of one holding
# 12.500000000000000010. For the same reason each reason's text (a string
# as is, anything else as JSON) is made in the comprehensions, never by a
# function given the value.
_reasons(rule) := [] if {
	data.hcp.ext[rule] in {false, null}
} else := sort({x | some x in data.hcp.ext[rule]; is_string(x)} | {json.marshal(x) | some x in data.hcp.ext[rule]; not is_string(x)}) if {
	_is_list(data.hcp.ext[rule])
} else := sort({k | some k, _ in data.hcp.ext[rule]; is_string(k)} | {json.marshal(k) | some k, _ in data.hcp.ext[rule]; not is_string(k)}) if {
	is_object(data.hcp.ext[rule])
} else := [data.hcp.ext[rule]] if {
	is_string(data.hcp.ext[rule])
} else := [json.marshal(data.hcp.ext[rule])]

_is_list(v) if is_array(v)

_is_list(v) if is_set(v)

# The gate passes when the row has none and no runtime rule adds one; a
# "true" gate (the row's, or a runtime's) in mode run; confirm or apply; or
# an exact allow rule. "always" passes only the last three.
_gate_passed if {
	_row.gate == "false"
	not _runtime_gate
}

_gate_passed if {
	input.access.mode == "run"
	_row.gate != "always"
}

_gate_passed if input.confirm == true

_gate_passed if input.apply == true

_gate_passed if {
	some i, _ in input.access.allow
	_allow_rule_matches(i)
}

# _gate_fields are what a confirm_required adds to the document.
_gate_fields := {"reasons": _gate_reasons, "preview": _preview, "hint": _hint}

# The reasons of a confirm_required are the runtime's when its rule, not
# the row, put the gate there.
_gate_reasons := _confirm_reasons if _row.gate == "false"

else := []
