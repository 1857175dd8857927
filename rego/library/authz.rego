# METADATA
# title: HCP authorization decision library
# description: |
#   The decision chain (docs/decisions.md) over the packs' rows
#   (data.hcp_packs), the grant lookup tables (data.hcp_grants) and the
#   runtime layer (data.hcp.ext). Entry points: decision, allow,
#   gpars_error, permissions; every other rule starts with _.
package hcp.authz

# METADATA
# title: decision
# description: |
#   The decision document (docs/decisions.md, "The decision document"),
#   defined for every input, garbage included: the chain, each step an
#   else branch, in order; the first that fails decides.
# entrypoint: true
decision := object.union({"reasons": _input_reasons}, _refusal("invalid_input")) if {
	not _well_formed
} else := object.union(_ids, _refusal("unknown_command")) if {
	not _row
} else := object.union(_row_fields, _refusal("pack_unavailable")) if {
	input.pack_reachable == false
} else := object.union(_row_fields, _refusal("tenant_unavailable")) if {
	not _tenant_available
} else := object.union(_row_fields, _refusal("capability_required")) if {
	not _grant
} else := object.union(_granted_fields, _refusal("land_denied")) if {
	not _land_holds(_row.land)
} else := object.union(object.union(_granted_fields, {"reasons": _deny_reasons}), _refusal("runtime_denied")) if {
	_deny_reasons != []
} else := object.union(_granted_fields, _confirm_refusal) if {
	not _gate_passed
} else := object.union(_granted_fields, {"allow": true, "code": "allowed"})

# METADATA
# title: allow
# description: true only when decision allows; false for every other input.
# entrypoint: true
allow := decision.allow

# METADATA
# title: gpars_error
# description: |
#   The GPARS JSON-RPC error object an MCP enforcement point returns for a
#   call refused for authorization or availability (docs/decisions.md);
#   undefined otherwise. It names the call and nothing of the policy.
# scope: document
# entrypoint: true
gpars_error := {
	"code": -32002,
	"message": sprintf("MCP server '%s' is not reachable.", [input.pack_id]),
	"data": {"gpars_code": "SERVER_UNAVAILABLE"},
} if {
	decision.code == "pack_unavailable"
}

gpars_error := {
	"code": -32002,
	"message": "Authorization for this request is not available here.",
	"data": {"gpars_code": "SERVER_UNAVAILABLE"},
} if {
	decision.code == "tenant_unavailable"
}

gpars_error := {
	"code": -32001,
	"message": sprintf("%s is not permitted for this agent.", [_gpars_subject]),
	"data": {"gpars_code": "AUTHORIZATION_DENIED"},
} if {
	not decision.code in {"allowed", "confirm_required", "pack_unavailable", "tenant_unavailable"}
}

_gpars_subject := "The request" if decision.code == "invalid_input"

else := _call.key

# _refusal is what a refused decision adds to the fields the chain knows at
# its step: allow false, the code, and the error (the confirm gate's
# refusal, which adds more, is _confirm_refusal). It takes the code alone:
# OPA keys a function's results by its arguments, and a document as one
# costs its hashing on every decision.
_refusal(code) := {"allow": false, "code": code, "error": _errors[code]}

_errors := {
	"invalid_input": "invalid input",
	"unknown_command": "unknown command",
	"pack_unavailable": "pack unavailable",
	"tenant_unavailable": "tenant unavailable",
	"capability_required": "capability required",
	"land_denied": "land denied",
	"runtime_denied": "denied by runtime policy",
}

# _call is the kind of the call and its key.
_call := {"field": "verb_key", "key": input.verb_key} if {
	_ = input.verb_key
} else := {"field": "stimulus", "key": input.stimulus}

# The fields of the document at each step: the call; then the row; then the
# grant that gave the capability.
_ids := {"pack_id": input.pack_id, _call.field: _call.key, "reasons": []}

_row_fields := {
	"pack_id": input.pack_id,
	_call.field: _call.key,
	"operation": _row.operation,
	"land": _row.land,
	"confirm": _row.confirm,
	"capability": _row.capability,
	"reasons": [],
	"source": {"row": _row.source},
}

_granted_fields := {
	"pack_id": input.pack_id,
	_call.field: _call.key,
	"operation": _row.operation,
	"land": _row.land,
	"confirm": _row.confirm,
	"capability": _row.capability,
	"reasons": [],
	"source": {"row": _row.source, "grant": _position_text(_grant)},
}
