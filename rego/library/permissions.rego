# What a principal may do in one pack (docs/permissions.md): the decision
# of every command and trigger of the pack for one input, in one query, for
# operators' consoles. The agent is never told its permissions: a runtime
# must not pass the listing on to it.
package hcp.authz

# METADATA
# title: permissions
# description: |
#   For the input's principal, land facts, mode and reachability, every
#   command and trigger of the pack with the decision a call with no args,
#   confirm, apply or allow rule would get: its code, disposition
#   (allow, ask or deny), capability, source and reasons. Defined for
#   every input: code is ok, invalid_input or unknown_pack.
# entrypoint: true
default permissions := {"code": "invalid_input", "reasons": [], "verbs": {}, "stimuli": {}}

permissions := {"code": "invalid_input", "reasons": reasons, "verbs": {}, "stimuli": {}} if {
	not _listing_well_formed
	reasons := array.slice(sort(_shape_problems | _listing_size_problems), 0, 8)
}

permissions := {"pack_id": input.pack_id, "code": "unknown_pack", "verbs": {}, "stimuli": {}} if {
	_listing_well_formed
	not data.hcp_packs[input.pack_id]
}

permissions := {"pack_id": input.pack_id, "code": "ok", "verbs": verbs, "stimuli": stimuli} if {
	_listing_well_formed
	pack := data.hcp_packs[input.pack_id]
	verbs := {key: _entry(["verb_key", key], row) | some key, row in pack.verbs}
	stimuli := {key: _entry(["stimulus", key], row) | some key, row in pack.stimuli}
}

# _listing_well_formed holds when the input, its key aside, is a well-formed
# decision input (the decision's own check of everything but the key), and
# is small enough that copying it once a key costs a bounded amount.
_listing_well_formed if {
	_shape_ok
	_listing_bounded
}

# _listing_bounded holds when the listing's input has at most 64 members,
# whose names and values other than objects and arrays hold at most 65,536
# characters in all (docs/permissions.md). Each key's call is a copy of
# the input, and OPA hashes each of its names and strings as it copies
# them; objects and arrays it keeps as they are. Counting the members
# costs nothing, and the sizes are read once, after the count.
_listing_bounded if {
	count(input) <= 64
	_listing_text <= 65536
}

_listing_text := sum([n | some name, value in input; n := count(name) + _scalar_size(value)])

# _listing_size_problems say which bound a listing's input passes.
_listing_size_problems contains "top level: a listing's input may hold at most 64 members" if {
	is_object(input)
	count(input) > 64
}

_listing_size_problems contains "top level: a listing's input may hold at most 65536 characters in its names and in its values other than objects and arrays" if {
	is_object(input)
	count(input) <= 64
	_listing_text > 65536
}

# _scalar_size is the length of a value other than an object or an array:
# a string's characters, another's JSON text.
_scalar_size(value) := 0 if {
	is_object(value)
} else := 0 if {
	is_array(value)
} else := count(value) if {
	is_string(value)
} else := count(json.marshal(value))

# _entry is the listing's entry for one command or trigger: slot is its
# field and key, as an input names it and the grant tables hold it, and row
# its row. The chain runs from pack_unavailable on, as it does for a call
# whose row exists.
_entry(slot, row) := {
	"disposition": object.get({"allowed": "allow", "confirm_required": "ask"}, step.code, "deny"),
	"code": step.code,
	"capability": row.capability,
	"source": step.source,
	"reasons": step.reasons,
} if {
	step := _listing_step(slot, row)
}

# _listing_step is the first step that fails, with the source and reasons
# the decision would carry.
_listing_step(slot, row) := {"code": "pack_unavailable", "source": {"row": row.source}, "reasons": []} if {
	input.pack_reachable == false
} else := {"code": "tenant_unavailable", "source": {"row": row.source}, "reasons": []} if {
	not _tenant_available
} else := {"code": "capability_required", "source": {"row": row.source}, "reasons": []} if {
	count(_listing_positions(slot, row.capability)) == 0
} else := _granted_step(slot, row, {"row": row.source, "grant": _position_text(min(_listing_positions(slot, row.capability)))})

# _granted_step runs the steps after the capability: land, the runtime's
# deny rules, the confirm gate. The runtime's rules see the input a call
# of this key would carry (_listing_call).
_granted_step(slot, row, source) := {"code": "land_denied", "source": source, "reasons": []} if {
	not _land_holds(row.land)
} else := {"code": "runtime_denied", "source": source, "reasons": deny} if {
	deny := _key_reasons(slot).deny
	deny != []
} else := {"code": "confirm_required", "source": source, "reasons": reasons} if {
	confirm := _key_reasons(slot).confirm
	not _listing_gate_passed(row.confirm, confirm)
	reasons := _listing_gate_reasons(row.confirm, confirm)
} else := {"code": "allowed", "source": source, "reasons": []}

# _key_reasons are the runtime's deny and confirm reasons for a call of
# this key with no args, confirm, apply or allow rule: [] where a rule is
# undefined, as in the decision.
_key_reasons([field, key]) := {"deny": deny, "confirm": confirm} if {
	keyed := object.union(_listing_call, {field: key})
	deny := object.get({"r": r | r := _deny_reasons with input as keyed}, "r", [])
	confirm := object.get({"r": r | r := _confirm_reasons with input as keyed}, "r", [])
}

# _listing_call is the input a call of the pack would carry, its key aside:
# the listing's input with args {} and no confirm, apply or allow rules,
# whatever it holds there, and every other member as given, so that a
# runtime's rules see what a call sees. It is built once a listing; each
# key's call adds the key to it, a copy of a bounded number of members
# (_listing_bounded).
_listing_call := object.union_n([
	object.remove(input, ["verb_key", "stimulus", "args", "confirm", "apply", "access"]),
	{"args": {}},
	{"access": access | access := object.remove(input.access, ["allow"])},
])

# _listing_gate_passed is _gate_passed for a call with no confirm, apply or
# allow rule: a gate, the row's or a runtime's, passes only a "true" gate in
# mode run.
_listing_gate_passed(false, [])

_listing_gate_passed(gate, _) if {
	input.access.mode == "run"
	gate != "always"
}

# _listing_gate_reasons are a confirm_required's reasons: the runtime's when
# its rule, not the row, put the gate there.
_listing_gate_reasons(false, confirm) := confirm

_listing_gate_reasons(gate, _) := [] if gate != false

# _listing_positions are the positions of the grants that give the
# capability in slot, as _grant finds them: of the principal's holders, or,
# when no principal: or role: grant applies to the principal, of the
# default holders; an empty set when none does. The capability's slot is
# looked up once a listing, each key's once, for the principal and the
# roles that have a grant in the pack (_pack_subjects).
_listing_positions(slot, capability) := named if {
	named := _positions_of(_pack_subjects, [slot]) | _named_capability(capability)
	count(named) > 0
} else := defaults if {
	not _named
	defaults := _positions_of(["default"], [slot, ["capability", capability]])
} else := set()

_named_capability(capability) := _positions_of(_pack_subjects, [["capability", capability]])
