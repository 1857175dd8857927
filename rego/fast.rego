# The fast path: the common calls decided in one pass over local values,
# which costs far less in OPA than the chain's rules. A well-formed command
# call whose row exists, whose pack is reachable, whose capability a
# principal: or role: grant gives, whose land fact holds and which meets no
# runtime rule is either allowed (no gate) or, gated and carrying no
# approval at all, confirm_required. Every other call, and every call whose
# facts this pass does not judge (default grants, local land, a runtime
# layer, approvals), goes to the chain in authz.rego, which is the reading
# of SPEC §3.2; the differential tests hold both to the Go reference.
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
	[row, _, source] := _fast_call
	row[2] == "false"
}

_fast := {
	"allow": false,
	"code": "confirm_required",
	"error": "confirm required",
	"pack_id": input.pack_id,
	"verb_key": input.verb_key,
	"operation": row[0],
	"land": row[1],
	"confirm": {"true": true, "always": "always"}[row[2]],
	"capability": row[3],
	"reasons": [],
	"source": source,
	"preview": {"command": input.verb_key, "args": args, "cli": sprintf(format, words)},
	"hint": _hint,
} if {
	[row, text, source] := _fast_call
	row[2] != "false"
	[1 | input.confirm == true] == []
	[1 | input.apply == true] == []
	[1 | some _ in input.access.allow] == []
	[1 | row[2] == "true"; input.access.mode == "run"] == []

	# The preview of a string template whose arguments are all present, as
	# preview.rego renders it: the placeholders become %s of one sprintf.
	args := object.get(input, "args", {})
	at := indexof(text, " | ")
	at >= 0
	template := substring(text, at + 3, -1)
	names := regex.find_all_string_submatch_n(`\{([^{}]+)\}`, template, -1)
	words := [_word(args[name]) | some [_, name] in names]
	count(words) == count(names)
	suffix := object.get({true: ""}, regex.match(`(^| )--(confirm|apply)( |$)`, template), " --confirm")
	format := concat("", [regex.replace(replace(template, "%", "%%"), `\{[^{}]+\}`, "%s"), suffix])
}

# _fast_shape holds for the common shape of a well-formed command call, by
# one regular expression over the input's canonical JSON (keys sorted) without
# args, which must be an object:
#
#	{ access: {allow: [], mode: ask|run}?, apply, confirm, dry_run: boolean?,
#	  owner: string?, pack_id: non-empty string, pack_reachable: boolean?,
#	  principal: {id: non-empty string, projects, roles: [string]?, tenant: string?},
#	  project_id: string?, verb_key: non-empty string,
#	  workspace: {paths: [string]?, root: string?}? }
#
# It is stricter than SPEC §3.1 (no stimulus, no allow rules, no other
# member of principal): whatever it refuses goes to the chain, which checks
# well-formedness in full (input.rego). It never accepts what §3.1 refuses.
_fast_shape if {
	regex.match(
		`^\{(?:"access":\{(?:"allow":\[\](?:,"mode":"(?:ask|run)")?|"mode":"(?:ask|run)")?\},)?(?:"apply":(?:true|false),)?(?:"confirm":(?:true|false),)?(?:"dry_run":(?:true|false),)?(?:"owner":"(?:[^"\\]|\\.)*",)?"pack_id":"(?:[^"\\]|\\.)+",(?:"pack_reachable":(?:true|false),)?"principal":\{"id":"(?:[^"\\]|\\.)+"(?:,"projects":\[(?:"(?:[^"\\]|\\.)*"(?:,"(?:[^"\\]|\\.)*")*)?\])?(?:,"roles":\[(?:"(?:[^"\\]|\\.)*"(?:,"(?:[^"\\]|\\.)*")*)?\])?(?:,"tenant":"(?:[^"\\]|\\.)*")?\},(?:"project_id":"(?:[^"\\]|\\.)*",)?"verb_key":"(?:[^"\\]|\\.)+"(?:,"workspace":\{(?:"paths":\[(?:"(?:[^"\\]|\\.)*"(?:,"(?:[^"\\]|\\.)*")*)?\](?:,"root":"(?:[^"\\]|\\.)*")?|"root":"(?:[^"\\]|\\.)*")?\})?\}$`,
		json.marshal(object.filter(input, [
			"access", "apply", "confirm", "dry_run", "owner", "pack_id", "pack_reachable",
			"principal", "project_id", "stimulus", "verb_key", "workspace",
		])),
	)
	is_object(object.get(input, "args", {}))
}

# _fast_call is the row, its text and the provenance of a call that passes
# every step but the gate, judged conservatively: undefined when in doubt.
_fast_call := [row, text, {
	"row": concat(":", [data.hcp.packs[input.pack_id].policy_file, row[4]]),
	"grant": concat("", [data.hcp.grants.files[bits.rsh(g, 32)], ":", format_int(bits.and(g, 4294967295), 10)]),
}] if {
	_fast_shape
	text := data.hcp.packs[input.pack_id].verbs[input.verb_key]
	row := split(text, " ")
	[1 | input.pack_reachable == false] == []
	[1 | data.hcp.ext.deny] == []
	[1 | data.hcp.ext.confirm] == []
	slots := [["v", input.verb_key], ["c", row[3]]]
	tenant := object.get(input.principal, "tenant", "")
	g := min({i |
		t := data.hcp.grants.principal[input.principal.id][input.pack_id]
		s := object.get(t, ["t", tenant], t)
		some [k, n] in slots
		i := s[k][n]
	} | {i |
		some r in input.principal.roles
		t := data.hcp.grants.role[r][input.pack_id]
		s := object.get(t, ["t", tenant], t)
		some [k, n] in slots
		i := s[k][n]
	})
	_fast_land(row[1])
}

# _fast_land holds when the land fact holds; local land goes to the chain.
# (A rule of its own: a negation inside a comprehension would see no
# missing fact at all, since OPA binds its references outside the "not".)
_fast_land("personal") if input.owner == input.principal.id

_fast_land("brain") if input.project_id in input.principal.projects
