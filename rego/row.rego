# The generated row of the call (see compile/generate.go), decoded once.
package hcp.authz

# _row_text is the row's text: "operation land confirm capability line",
# then " | " and the cli template for commands that have one, then, for a
# gated command, a line with the template's sprintf format and a line for
# each argument name. Each reference names one rule of the pack's module,
# so that evaluation never builds the whole module as a document.
_row_text := data.hcp.packs[input.pack_id].verbs[input.verb_key] if {
	_ = input.verb_key
} else := data.hcp.packs[input.pack_id].stimuli[input.stimulus]

# _row is the row decoded: its fields, where it stands (source), the cli
# template (a string, or an array in the pack's cli rule; absent when
# none), and the preview's format (absent when the compiler wrote none)
# and argument names.
_row := object.union(
	{
		"operation": words[0],
		"land": words[1],
		"gate": words[2],
		"confirm": _confirm_value[words[2]],
		"capability": words[3],
		"source": concat(":", [data.hcp.packs[input.pack_id].policy_file, words[4]]),
		"names": array.slice(lines, 2, count(lines)),
	},
	object.union(_template(lines[0]), {"format": f | some f in array.slice(lines, 1, 2)}),
) if {
	lines := split(_row_text, "\n")
	words := split(lines[0], " ")
}

_confirm_value := {"false": false, "true": true, "always": "always"}

# _template is the row's cli template: after " | " on its first line, or in
# the pack's cli rule when a token could not be written in a string.
_template(line) := {"template": substring(line, i + 3, -1)} if {
	i := indexof(line, " | ")
	i >= 0
} else := {"template": t} if {
	t := data.hcp.packs[input.pack_id].cli[input.verb_key]
} else := {}
