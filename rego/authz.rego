# METADATA
# title: HCP authorization decision library
# description: |
#   The chain of SPEC §3.2 over the generated rows (data.hcp.packs), the
#   grant lookup tables (data.hcp.grants) and the runtime layer
#   (data.hcp.ext). Entry points: decision, allow, gpars_error.
package hcp.authz

# decision is the decision document of SPEC §3.6, defined for every input.
# The common calls take the fast path (fast.rego); every other call goes
# through the chain: each step is an else branch, in order, and the first
# that fails decides.
decision := _fast if {
	_fast
} else := _invalid if {
	not _well_formed
} else := _deny("unknown_command", "unknown command", _ids) if {
	not _row
} else := _deny("pack_unavailable", "pack unavailable", _base) if {
	input.pack_reachable == false
} else := _deny("capability_required", "capability required", _base) if {
	not _grant
} else := _deny("land_denied", "land denied", _granted) if {
	not _land_ok
} else := _runtime_denied if {
	_deny_reasons != []
} else := _confirm_required if {
	not _gate_passed
} else := _allowed

# allow is true only when decision allows.
allow := decision.allow

# gpars_error is the GPARS JSON-RPC error object (seed 001) for a refused
# call. It names the call and nothing of the policy.
gpars_error := {
	"code": -32002,
	"message": sprintf("MCP server '%s' is not reachable.", [input.pack_id]),
	"data": {"gpars_code": "SERVER_UNAVAILABLE"},
} if {
	decision.code == "pack_unavailable"
}

gpars_error := {
	"code": -32001,
	"message": sprintf("%s is not permitted for this agent.", [_gpars_subject]),
	"data": {"gpars_code": "AUTHORIZATION_DENIED"},
} if {
	not decision.code in {"allowed", "confirm_required", "pack_unavailable"}
}

_gpars_subject := "The request" if decision.code == "invalid_input"

else := _call.key

_hint := "Nothing ran. Re-run with confirm=true only if the user has approved this exact action with these values."

_invalid := {"allow": false, "code": "invalid_input", "error": "invalid input", "reasons": []}

_deny(code, message, fields) := object.union(fields, {"allow": false, "code": code, "error": message})

# _call is the kind of the call and its key.
_call := {"field": "verb_key", "code": "v", "key": input.verb_key} if {
	_ = input.verb_key
} else := {"field": "stimulus", "code": "s", "key": input.stimulus}

# _row_text is the generated row (see compile/generate.go): "operation land
# confirm capability line", then " | " and the cli template for commands
# that have one. Each reference names one rule of the pack's module, so that
# evaluation never builds the whole module as a document.
_row_text := data.hcp.packs[input.pack_id].verbs[input.verb_key] if {
	_ = input.verb_key
} else := data.hcp.packs[input.pack_id].stimuli[input.stimulus]

# _row is the generated row's words: operation, land, confirm, capability,
# line (and, for a command with a cli template, "|" and the template).
_row := split(_row_text, " ")

_confirm_value := {"false": false, "true": true, "always": "always"}

_ids := {"pack_id": input.pack_id, _call.field: _call.key, "reasons": []}

_base := {
	"pack_id": input.pack_id,
	_call.field: _call.key,
	"operation": _row[0],
	"land": _row[1],
	"confirm": _confirm_value[_row[2]],
	"capability": _row[3],
	"reasons": [],
	"source": {"row": _source_row},
}

_source_row := concat(":", [data.hcp.packs[input.pack_id].policy_file, _row[4]])

_granted := {
	"pack_id": input.pack_id,
	_call.field: _call.key,
	"operation": _row[0],
	"land": _row[1],
	"confirm": _confirm_value[_row[2]],
	"capability": _row[3],
	"reasons": [],
	"source": {"row": _source_row, "grant": _grant_source},
}

_allowed := {
	"allow": true,
	"code": "allowed",
	"pack_id": input.pack_id,
	_call.field: _call.key,
	"operation": _row[0],
	"land": _row[1],
	"confirm": _confirm_value[_row[2]],
	"capability": _row[3],
	"reasons": [],
	"source": {"row": _source_row, "grant": _grant_source},
}

# _grant_source is the first grant's "file:line", rebuilt from its position
# (file << 32 | line, compile.Grant.Position).
_grant_source := sprintf("%s:%d", [data.hcp.grants.files[bits.rsh(_grant, 32)], bits.and(_grant, 4294967295)])
