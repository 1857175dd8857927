# The first branch of decision: the common calls in one pass. A well-formed
# call whose row exists, whose pack is reachable, whose capability a
# principal: or role: grant gives, whose land fact holds and which no
# runtime rule meets, with no allow rule, is allowed when it has no gate or
# carries its approval, and confirm_required when it is gated and carries
# none. It uses the chain's own helpers (well-formedness, the row, the
# grant lookup, land, the preview and the document builder) and decides
# each call it takes as the chain does; every other call goes to the chain.
package hcp.authz

_common := _doc(code, object.union(fields, extra)) if {
	_well_formed
	not input.pack_reachable == false
	[r | some r in input.access.allow] == []
	[1 | d := data.hcp.ext.deny; d != set()] == []
	[1 | c := data.hcp.ext.confirm; c != set()] == []
	row := _row
	positions := _named_positions
	count(positions) > 0
	_land_ok
	call := _call
	fields := {
		"pack_id": input.pack_id,
		call.field: call.key,
		"operation": row.operation,
		"land": row.land,
		"confirm": row.confirm,
		"capability": row.capability,
		"reasons": [],
		"source": {"row": row.source, "grant": _position_text(min(positions))},
	}
	[code, extra] := _common_gate
}

# _common_gate is the gate's outcome: allowed when the call needs no
# approval or carries one (no gate; confirm or apply; a "true" gate in
# mode run), else confirm_required with the preview. One rule, each case
# an else branch.
_common_gate := ["allowed", {}] if {
	_row.gate == "false"
} else := ["allowed", {}] if {
	input.confirm == true
} else := ["allowed", {}] if {
	input.apply == true
} else := ["allowed", {}] if {
	_row.gate == "true"
	input.access.mode == "run"
} else := ["confirm_required", {"preview": _preview, "hint": _hint}]
