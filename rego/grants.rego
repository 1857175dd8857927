# Required capability (SPEC §2.3, §3.3)
# data.hcp.grants holds lookup tables built at compile time (see
# compile/tables.go): data.hcp.grants[kind][name][pack] is a subject's table
# for a pack, for kind "principal" or "role" (and data.hcp.grants.default
# [pack] for default grants). A table gives the position of the first grant
# of a kind: by the row's key ("verb_key" or "stimulus", then the key) for
# grants on one command or trigger that give its capability, or by
# capability ("cap", then the capability) for pack-wide grants; then by
# tenant ("" for grants without one). The first grant is the smallest
# position found, so a decision makes a few lookups and never scans grants.
package hcp.authz

# _grant is the position of the first grant that gives the capability.
_grant := min(_named_positions) if {
	count(_named_positions) > 0
} else := min(_default_positions) if {
	not _named
	count(_default_positions) > 0
}

_subjects := array.concat([["principal", input.principal.id]], [["role", r] | some r in input.principal.roles])

_tenants := {object.get(input.principal, "tenant", ""), ""}

_named_positions := {i |
	some [kind, name] in _subjects
	table := data.hcp.grants[kind][name][input.pack_id]
	some [slot, key] in [[_call.field, _call.key], ["cap", _row[3]]]
	some tenant in _tenants
	i := table[slot][key][tenant]
}

_default_positions := {i |
	table := data.hcp.grants.default[input.pack_id]
	some [slot, key] in [[_call.field, _call.key], ["cap", _row[3]]]
	some tenant in _tenants
	i := table[slot][key][tenant]
}

# _named holds when some principal: or role: grant applies to the principal,
# in any pack; default grants then do not count.
_named if {
	some [kind, name] in _subjects
	some tenant in _tenants
	data.hcp.grants.applies[kind][name][tenant]
}
