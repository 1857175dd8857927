# Runtime layer (SPEC §4.2) and confirm gate (SPEC §3.4)
package hcp.authz

# A runtime rule fires unless it is undefined, false, null or an empty
# collection; anything else fires (fail closed), and its reasons are the
# members of a set or array, the keys of an object, or the value itself.
_deny_reasons := _reasons(data.hcp.ext.deny)

_confirm_reasons := _reasons(data.hcp.ext.confirm)

_runtime_gate if _confirm_reasons != []

_runtime_denied := object.union(_deny("runtime_denied", "denied by runtime policy", _granted), {"reasons": _deny_reasons})

_reasons(v) := [] if {
	v in {false, null}
} else := sort({_reason(x) | some x in v}) if {
	_is_list(v)
} else := sort({_reason(k) | some k, _ in v}) if {
	is_object(v)
} else := [_reason(v)]

_is_list(v) if is_array(v)

_is_list(v) if is_set(v)

_reason(x) := x if is_string(x)

else := json.marshal(x)

# The gate passes when the row has none and no runtime rule adds one; a
# "true" gate (the row's, or a runtime's) in mode run; confirm or apply; or
# an exact allow rule. "always" passes only the last three.
_gate_passed if {
	_row[2] == "false"
	not _runtime_gate
}

_gate_passed if {
	input.access.mode == "run"
	_row[2] != "always"
}

_gate_passed if input.confirm == true

_gate_passed if input.apply == true

_gate_passed if {
	some rule in input.access.allow
	_allow_rule_matches(rule)
}

_confirm_required := {
	"allow": false,
	"code": "confirm_required",
	"error": "confirm required",
	"pack_id": input.pack_id,
	_call.field: _call.key,
	"operation": _row[0],
	"land": _row[1],
	"confirm": _confirm_value[_row[2]],
	"capability": _row[3],
	"reasons": _gate_reasons,
	"source": {"row": _source_row, "grant": _grant_source},
	"preview": _preview,
	"hint": _hint,
}

# The reasons of a confirm_required are the runtime's when its rule, not
# the row, put the gate there.
_gate_reasons := _confirm_reasons if _row[2] == "false"

else := []
