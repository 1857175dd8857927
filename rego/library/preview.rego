# Preview of a confirm-gated call (docs/decisions.md): the row's cli
# template with the call's arguments, in one sprintf when the call gives
# every argument the row's preview_format names, else token by token, in a
# few comprehensions without helper functions, which cost more than the
# work.
package hcp.authz

_args := object.get(input, "args", {})

# _arg_texts maps each argument to its text: a string as is, anything else
# as its JSON text. Rendering reads arguments only from here, and its
# functions take text: OPA caches a function's results by its arguments,
# compared as OPA compares numbers, so a function given 12.50 would be
# served what it returned for 12.500000000000000010.
_arg_texts := object.union(
	{name: v | some name, v in _args; is_string(v)},
	{name: json.marshal(v) | some name, v in _args; not is_string(v)},
)

# _preview is the call's command and arguments and, when its row has a
# cli template, the template filled in (cli): in one sprintf when the call
# gives every argument the row's preview_format names, as a string; else
# token by token; no cli without a template. One rule, not a rule for the
# cli beside it that only the preview read.
_preview := {"command": _call.key, "args": _args, "cli": sprintf(_row.preview_format, words)} if {
	words := [_shell_word(s) | some name in _row.preview_args; s := _args[name]; is_string(s)]
	count(words) == count(_row.preview_args)
} else := {"command": _call.key, "args": _args, "cli": concat(" ", array.concat(words, _confirm_flag))} if {
	is_array(_tokens)
	words := [text | some i, t in _tokens; not i in _dropped; text := object.get(_quoted, i, t)]
} else := {"command": _call.key, "args": _args}

# _shell_word quotes an argument's text as one shell word: single-quoted
# when it is empty or holds a character outside [A-Za-z0-9._/:@%+=,-],
# that is, when trimming those characters off leaves something. (trim,
# not regex.match, which through OPA's REST API goes through the server's
# value cache and its metrics: with the preview one rule, a
# confirm_required through REST costs 1.5% less, six runs of alternating
# order.)
_shell_word(s) := s if {
	s != ""
	trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/:@%+=,-") == ""
} else := concat("", ["'", replace(s, "'", `'\''`), "'"])

_tokens := _row.cli

# _placeholders maps the position of each {name} token to the name.
_placeholders := {i: substring(t, 1, count(t) - 2) | some i, t in _tokens; regex.match(`^\{[^{}]+\}$`, t)}

# _values maps the position of each placeholder whose argument the call
# carries to the argument's text.
_values := {i: _arg_texts[name] | some i, name in _placeholders}

# _quoted is each value as a shell word.
_quoted := {i: _shell_word(v) | some i, v in _values}

# _absent holds the placeholders whose argument the call does not carry;
# each is dropped, with a --flag just before it.
_absent := {i | some i, _ in _placeholders; not _values[i]}

_dropped := _absent | {j | some i in _absent; j := i - 1; startswith(_tokens[j], "--")}

default _confirm_flag := ["--confirm"]

_confirm_flag := [] if {
	some t in _tokens
	t in {"--confirm", "--apply"}
}
