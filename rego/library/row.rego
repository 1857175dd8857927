# The row of the call (docs/rego.md shows data.hcp_packs): its fields by
# name, as the compiler wrote them from the pack's policy.json and
# manifest.json.
package hcp.authz

# _row is the call's row: operation, land, confirm (false, true or
# "always", as written), the capability it needs, source (where it stands
# in policy.json) and, for a command with one, its cli template as tokens.
_row := data.hcp_packs[input.pack_id].verbs[input.verb_key] if {
	_ = input.verb_key
} else := data.hcp_packs[input.pack_id].stimuli[input.stimulus]
