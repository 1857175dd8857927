# Required capability (docs/decisions.md; grant files: docs/files.md)
# data.hcp_grants holds lookup tables built at compile time (docs/rego.md
# shows their layout). slots[pack][field][key] is a slot: for a grant on
# one command or trigger, field verb_key or stimulus and its key; for a
# pack-wide grant, field "capability" and each capability it gives. A slot
# maps each holder to the position of its first grant there: the holder is
# the grant's subject as the grant file writes it ("principal:alice",
# "role:member", "default"), or, for a grant with a tenant, the JSON text
# of [subject, tenant]. A position is the grant's file (in the order
# given) and line in one number, so the first grant is the smallest
# position found, and a decision never scans grants: it looks up two slots
# and a few holders in each, whatever the number of grants.
package hcp.authz

# _grant is the position of the first grant that gives the capability: the
# smallest position of the principal's holders in the call's slots, or,
# when no principal: or role: grant applies to the principal, of the
# default holders.
_grant := min(positions) if {
	positions := _named_positions
	count(positions) > 0
} else := min(positions) if {
	positions := _positions_of(_holders_of(["default"]), _slots)
	count(positions) > 0
	not _named
}

_tenant := object.get(input.principal, "tenant", "")

# _tenants are the tenants whose grants count for the principal: those
# without a tenant ("") and its own.
_tenants := {"", _tenant}

# _slots are the field and key of the slots whose grants count for the
# call: its kind and key, and its row's capability.
_slots := [[_call.field, _call.key], ["capability", _row.capability]]

# _subjects are the subjects that name the principal in the pack, as grant
# files write them: principal:ID, and role:NAME for each of its roles that
# has a grant in the pack (data.hcp_grants.roles), so that a role with none
# costs one lookup, whatever the call (a listing looks up many slots).
_subjects := array.concat([_principal_subject], [subject |
	some role in input.principal.roles
	subject := concat("", ["role:", role])
	data.hcp_grants.roles[input.pack_id][subject]
])

_principal_subject := concat("", ["principal:", input.principal.id])

_named_positions := {position |
	some [field, key] in _slots
	slot := data.hcp_grants.slots[input.pack_id][field][key]
	some holder in _named_holders
	position := slot[holder]
}

_named_holders := array.concat(_subjects, [json.marshal([subject, _tenant]) |
	_tenant != ""
	some subject in _subjects
])

# _holders_of are the holders of subjects whose grants count for the
# principal: each subject, for its grants without a tenant, and [subject,
# tenant] for those of the principal's tenant.
_holders_of(subjects) := array.concat(subjects, [json.marshal([subject, _tenant]) |
	_tenant != ""
	some subject in subjects
])

# _positions_of are the positions of holders in slots.
_positions_of(holders, slots) := {position |
	some [field, key] in slots
	slot := data.hcp_grants.slots[input.pack_id][field][key]
	some holder in holders
	position := slot[holder]
}

# _named holds when some principal: or role: grant applies to the principal,
# in any pack; default grants then do not count. (The table is there only
# when some default grant is.)
_named if {
	some tenant in _tenants
	data.hcp_grants.applies[tenant][_principal_subject]
}

_named if {
	some role in input.principal.roles
	some tenant in _tenants
	data.hcp_grants.applies[tenant][concat("", ["role:", role])]
}

# _grant_source is the first grant's "file:line", from its position.
_grant_source := _position_text(_grant)

# _position_text is a grant's "file:line" from its position, which holds
# the grant's file (its place in data.hcp_grants.files) times 2^32 plus its
# line, so that the first grant is the smallest position.
_position_text(position) := sprintf("%s:%d", [data.hcp_grants.files[bits.rsh(position, 32)], bits.and(position, 4294967295)])
