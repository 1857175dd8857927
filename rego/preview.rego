# Preview of a confirm-gated call (SPEC §3.4). Rendering is written as a
# few comprehensions over the template's tokens, without helper functions,
# which cost more than the work.
package hcp.authz

_args := object.get(input, "args", {})

_preview := {"command": _call.key, "args": _args, "cli": _cli} if {
	_cli
} else := {"command": _call.key, "args": _args}

# _tokens is the command's cli template: generated as one string of
# space-separated tokens, or as an array when a token holds a space.
_tokens := split(t, " ") if {
	t := data.hcp.packs[input.pack_id].cli[input.verb_key]
	is_string(t)
} else := data.hcp.packs[input.pack_id].cli[input.verb_key]

# _placeholders maps the position of each {name} token to the name.
_placeholders := {i: substring(t, 1, count(t) - 2) | some i, t in _tokens; regex.match(`^\{[^{}]+\}$`, t)}

# _values maps the position of each placeholder whose argument the call
# carries to the argument as text: a string as is, anything else as JSON.
_values := object.union(
	{i: v | some i, name in _placeholders; v := _args[name]; is_string(v)},
	{i: json.marshal(v) | some i, name in _placeholders; v := _args[name]; not is_string(v)},
)

# _quoted is each value as a shell word: single-quoted when it is empty or
# holds a character outside [A-Za-z0-9._/:@%+=,-].
_quoted := object.union(
	{i: v | some i, v in _values; regex.match(`^[A-Za-z0-9._/:@%+=,-]+$`, v)},
	{i: concat("", ["'", replace(v, "'", `'\''`), "'"]) | some i, v in _values; not regex.match(`^[A-Za-z0-9._/:@%+=,-]+$`, v)},
)

# _absent holds the placeholders whose argument the call does not carry;
# each is dropped, with a --flag just before it.
_absent := {i | some i, _ in _placeholders; not _values[i]}

_dropped := _absent | {j | some i in _absent; j := i - 1; startswith(_tokens[j], "--")}

_cli := concat(" ", array.concat(
	[text | some i, t in _tokens; not i in _dropped; text := object.get(_quoted, i, t)],
	_confirm_flag,
)) if _tokens

_confirm_flag := [] if {
	some t in _tokens
	t in {"--confirm", "--apply"}
} else := ["--confirm"]
