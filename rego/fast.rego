# The fast path: the common calls decided in one pass over local values,
# which costs far less in OPA than the chain's rules. A command call of the
# common shape (below) whose row exists, whose pack is reachable, whose
# capability a principal: or role: grant gives, whose land fact holds and
# which no runtime rule meets is allowed when it has no gate or carries its
# approval, and confirm_required when it is gated and carries no approval at
# all. Every other call, and every call whose facts this pass does not
# judge (default grants, local land, runtime rules that have members, allow
# rules), goes to the chain in authz.rego, which is the reading of SPEC
# §3.2; the differential tests hold both to the Go reference.
package hcp.authz

# _fast is the decision of the fast path, undefined when it does not apply.
_fast := {
	"allow": true,
	"code": "allowed",
	"pack_id": input.pack_id,
	"verb_key": input.verb_key,
	"operation": row[0],
	"land": row[1],
	"confirm": false,
	"capability": row[3],
	"reasons": [],
	"source": source,
} if {
	[row, source, _, _] := _fast_call
	row[2] == "false"
} else := {
	"allow": false,
	"code": "confirm_required",
	"error": "confirm required",
	"pack_id": input.pack_id,
	"verb_key": input.verb_key,
	"operation": row[0],
	"land": row[1],
	"confirm": _confirm_value[row[2]],
	"capability": row[3],
	"reasons": [],
	"source": source,
	"preview": {"command": input.verb_key, "args": args, "cli": sprintf(preview[1], words)},
	"hint": _hint,
} if {
	[row, source, text, shape] := _fast_call

	# No approval at all: an approving member anywhere in the text (an
	# argument's too) sends the call on, never the other way.
	regex.match(`"(?:apply|confirm)": true|"mode": "run"`, shape) == false

	# The preview of a gated command whose arguments are all present, from
	# the format and argument names the compiler wrote after the row's first
	# line (compile.PreviewText).
	preview := split(text, "\n")
	args := object.get(input, "args", {})
	words := [_shell_word(_arg_texts[name]) | some name in array.slice(preview, 2, count(preview))]
	count(words) == count(preview) - 2
} else := {
	"allow": true,
	"code": "allowed",
	"pack_id": input.pack_id,
	"verb_key": input.verb_key,
	"operation": row[0],
	"land": row[1],
	"confirm": _confirm_value[row[2]],
	"capability": row[3],
	"reasons": [],
	"source": source,
} if {
	[row, source, _, _] := _fast_call
	_fast_approved(row[2])
}

# _fast_approved holds when the call carries what passes a gate (SPEC §3.4)
# other than an allow rule: confirm or apply, or mode run for a true gate.
_fast_approved(_) if input.confirm == true

_fast_approved(_) if input.apply == true

_fast_approved("true") if input.access.mode == "run"

# _fast_call is the row, its provenance, the row's text and the input's
# text of a call that passes every step but the gate, judged conservatively:
# undefined when in doubt.
#
# The input's text (sprintf's %v: keys sorted, ", " and ": " between) must
# have the common shape of a well-formed command call, which one regular
# expression checks:
#
#	{ access: {allow: [], mode: ask|run}?, apply: boolean?,
#	  args: {string: string|number|boolean|null}?, confirm: boolean?,
#	  dry_run: boolean?, owner: string?, pack_id: non-empty string,
#	  pack_reachable: true?,
#	  principal: {id: non-empty string, projects: [string]?, roles: [string]?, tenant: string?},
#	  project_id: string?, verb_key: non-empty string,
#	  workspace: {paths: [string]?, root: string?}? }
#
# It is stricter than SPEC §3.1 (no other member, no nested argument, no
# allow rule): whatever it refuses goes to the chain, which checks
# well-formedness in full (input.rego). It never accepts what §3.1 refuses.
# Strings are Go-quoted there, so a quote inside one is always escaped. The
# expression stays under 500 instructions so that Go's regexp matches it
# with its backtracker, about three times faster than otherwise
# (TestFastShapeSize).
_fast_call := [row, source, text, shape] if {
	text := data.hcp.packs[input.pack_id].verbs[input.verb_key]
	row := split(text, " ")
	shape := sprintf("%v", [input])
	regex.match(
		`^\{(?:"access": \{(?:"allow": \[\])?(?:, )?(?:"mode": "(?:ask|run)")?\}, )?(?:"apply": (?:true|false), )?(?:"args": \{(?:"(?:[^"\\]|\\.)*": (?:"(?:[^"\\]|\\.)*"|[-+.0-9A-Za-z]+)(?:, "(?:[^"\\]|\\.)*": (?:"(?:[^"\\]|\\.)*"|[-+.0-9A-Za-z]+))*)?\}, )?(?:"confirm": (?:true|false), )?(?:"dry_run": (?:true|false), )?(?:"owner": "(?:[^"\\]|\\.)*", )?"pack_id": "(?:[^"\\]|\\.)+", (?:"pack_reachable": true, )?"principal": \{"id": "(?:[^"\\]|\\.)+"(?:, "projects": \[(?:"(?:[^"\\]|\\.)*"(?:, "(?:[^"\\]|\\.)*")*)?\])?(?:, "roles": \[(?:"(?:[^"\\]|\\.)*"(?:, "(?:[^"\\]|\\.)*")*)?\])?(?:, "tenant": "(?:[^"\\]|\\.)*")?\}, (?:"project_id": "(?:[^"\\]|\\.)*", )?"verb_key": "(?:[^"\\]|\\.)+"(?:, "workspace": \{(?:"paths": \[(?:"(?:[^"\\]|\\.)*"(?:, "(?:[^"\\]|\\.)*")*)?\])?(?:, )?(?:"root": "(?:[^"\\]|\\.)*")?\})?\}$`,
		shape,
	)

	# No runtime rule has a member (an empty set is what a layer of
	# partial rules gives when none fires).
	[1 | d := data.hcp.ext.deny; d != set()] == []
	[1 | c := data.hcp.ext.confirm; c != set()] == []

	tenant := object.get(input.principal, "tenant", "")
	g := min({i |
		t := data.hcp.grants.principal[input.principal.id][input.pack_id]
		s := object.get(t, ["t", tenant], t)
		some [k, n] in [["v", input.verb_key], ["c", row[3]]]
		i := s[k][n]
	} | {i |
		some r in input.principal.roles
		t := data.hcp.grants.role[r][input.pack_id]
		s := object.get(t, ["t", tenant], t)
		some [k, n] in [["v", input.verb_key], ["c", row[3]]]
		i := s[k][n]
	})
	_fast_land(row[1])
	source := {
		"row": concat(":", [data.hcp.packs[input.pack_id].policy_file, row[4]]),
		"grant": sprintf("%s:%d", [data.hcp.grants.files[bits.rsh(g, 32)], bits.and(g, 4294967295)]),
	}
}

# _fast_land holds when the land fact holds; local land goes to the chain.
# (A rule of its own: a negation inside a comprehension would see no
# missing fact at all, since OPA binds its references outside the "not".)
_fast_land("personal") if input.owner == input.principal.id

_fast_land("brain") if input.project_id in input.principal.projects
