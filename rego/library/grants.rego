# Required capability (docs/decisions.md; grant files: docs/files.md)
# data.hcp_grants holds lookup tables built at compile time (docs/rego.md
# shows their layout): principal[id][pack] and role[name][pack] (and
# default[pack]) are scope tables giving the position of the first grant of
# a kind: under "c" by capability for pack-wide grants, under "v" or "s" by
# key for grants on one command or trigger that give its capability. Under
# "t", a tenant's scope holds that tenant's grants and those without a
# tenant, so a call looks in one scope a subject. A position is the grant's
# file (in the order given) and line in one number: the first grant is the
# smallest position found, and a decision never scans grants. (A list of
# every grant's "file:line" would save two builtin calls a decision and
# cost the large bundle's activation about 0.1 s and 40 MB.)
package hcp.authz

# _grant is the position of the first grant that gives the capability: the
# smallest position in the scopes of the principal and its roles, or, when
# no principal: or role: grant applies to the principal, in the default
# scopes. Each scope is the pack's table for the subject, or its tenant's
# scope within it; a position is found by the call's key or by the row's
# capability.
_grant := min(positions) if {
	positions := _named_positions
	count(positions) > 0
} else := min(positions) if {
	not _named
	positions := {i |
		t := data.hcp_grants.default[input.pack_id]
		s := object.get(t, ["t", _tenant], t)
		some [kind, name] in _slots
		i := s[kind][name]
	}
	count(positions) > 0
}

_tenant := object.get(input.principal, "tenant", "")

# _slots are where a scope table holds the grants that count: by the row's
# key, and by its capability.
_slots := [[_call.code, _call.key], ["c", _row.capability]]

_named_positions := {i |
	t := data.hcp_grants.principal[input.principal.id][input.pack_id]
	s := object.get(t, ["t", _tenant], t)
	some [kind, name] in _slots
	i := s[kind][name]
} | {i |
	some role in input.principal.roles
	t := data.hcp_grants.role[role][input.pack_id]
	s := object.get(t, ["t", _tenant], t)
	some [kind, name] in _slots
	i := s[kind][name]
}

# _named holds when some principal: or role: grant applies to the principal,
# in any pack; default grants then do not count.
_named if data.hcp_grants.applies.principal[input.principal.id][""]

_named if data.hcp_grants.applies.principal[input.principal.id][input.principal.tenant]

_named if {
	some role in input.principal.roles
	data.hcp_grants.applies.role[role][""]
}

_named if {
	some role in input.principal.roles
	data.hcp_grants.applies.role[role][input.principal.tenant]
}

# _grant_source is the first grant's "file:line", from its position.
_grant_source := _position_text(_grant)

# _position_text decodes a grant's position, its file (in the order given)
# and line in one number, file << 32 | line.
_position_text(p) := sprintf("%s:%d", [data.hcp_grants.files[bits.rsh(p, 32)], bits.and(p, 4294967295)])
