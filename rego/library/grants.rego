# Required capability (docs/decisions.md; grant files: docs/files.md)
# data.hcp_grants holds lookup tables built at compile time (docs/rego.md
# shows their layout): base, the tables of the grants without a tenant and,
# unless the build is sharded, of every grant; and, in a sharded build
# (docs/fleet.md), shards[K], the tables of the tenants whose shard is K.
# In each, slots[pack][field][key] is a slot: for a grant on one command or
# trigger, field verb_key or stimulus and its key; for a pack-wide grant,
# field "capability" and each capability it gives. A slot maps each holder
# to the position of its first grant there: the holder is the grant's
# subject as the grant file writes it ("principal:alice", "role:member",
# "default"), or, for a grant with a tenant, the JSON text of [subject,
# tenant]. A position is the grant's file (in the order given) and line in
# one number, so the first grant is the smallest position found, and a
# decision never scans grants: it looks up two slots and a few holders in
# each, whatever the number of grants.
package hcp.authz

# _grant is the position of the first grant that gives the capability: the
# smallest position of the principal's holders in the call's slots, or,
# when no principal: or role: grant applies to the principal, of the
# default holders.
_grant := min(positions) if {
	positions := _positions_of(_subjects, _slots)
	count(positions) > 0
} else := min(positions) if {
	positions := _positions_of(["default"], _slots)
	count(positions) > 0
	not _named
}

_tenant := object.get(input.principal, "tenant", "")

# _slots are the field and key of the slots whose grants count for the
# call: its kind and key, and its row's capability.
_slots := [[_call.field, _call.key], ["capability", _row.capability]]

# _subjects are the subjects that name the principal, as grant files write
# them: principal:ID, and role:NAME for each of its roles. A role without a
# grant in the pack holds none of its slots, and its lookups miss.
_subjects := array.concat([_principal_subject], [concat("", ["role:", role]) | some role in input.principal.roles])

# _pack_subjects are the subjects less the roles that have no grant in the
# pack (the tables' roles), so that a role with none costs a listing, which
# looks up many slots, one lookup. A decision looks up two slots: the
# filter would cost it more than the lookups it saves.
_pack_subjects := array.concat([_principal_subject], [subject |
	some role in input.principal.roles
	subject := concat("", ["role:", role])
	_role_in_pack(subject)
])

_principal_subject := concat("", ["principal:", input.principal.id])

_role_in_pack(subject) if data.hcp_grants.base.roles[input.pack_id][subject]

_role_in_pack(subject) if _tenant_tables.roles[input.pack_id][subject]

# _positions_of are the positions, in slots, of the holders of subjects
# whose grants count for the principal: each subject for its grants
# without a tenant, and [subject, tenant] for those of the principal's
# tenant. An unsharded build's base tables hold both (_base_holders); a
# sharded build's hold the first, and the tenant's shard the second
# (_tenant_tables).
_positions_of(subjects, slots) := {position |
	holders := _base_holders(subjects)
	some [field, key] in slots
	slot := data.hcp_grants.base.slots[input.pack_id][field][key]
	some holder in holders
	position := slot[holder]
} | {position |
	_sharded
	holders := _tenant_holders(subjects)
	some [field, key] in slots
	slot := _tenant_tables.slots[input.pack_id][field][key]
	some holder in holders
	position := slot[holder]
}

_base_holders(subjects) := array.concat(subjects, _tenant_holders(subjects)) if {
	not _sharded
} else := subjects

_tenant_holders(subjects) := [json.marshal([subject, _tenant]) |
	_tenant != ""
	some subject in subjects
]

# _named holds when some principal: or role: grant applies to the principal,
# in any pack; default grants then do not count. (The tables have applies
# only when some default grant is.)
_named if {
	some [tables, tenant] in [[data.hcp_grants.base, ""], [_tenant_tables, _tenant]]
	tables.applies[tenant][_principal_subject]
}

_named if {
	some role in input.principal.roles
	some [tables, tenant] in [[data.hcp_grants.base, ""], [_tenant_tables, _tenant]]
	tables.applies[tenant][concat("", ["role:", role])]
}

# _position_text is a grant's "file:line" from its position, which holds
# the grant's file (its place in the base tables' files) times 2^32 plus
# its line, so that the first grant is the smallest position.
_position_text(position) := sprintf("%s:%d", [data.hcp_grants.base.files[bits.rsh(position, 32)], bits.and(position, 4294967295)])
