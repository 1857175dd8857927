# The generated row of the call (see compile/generate.go), decoded once.
package hcp.authz

# _row_text is the row's text: "operation land confirm capability line",
# then " | " and the cli template for commands that have one, then, for a
# gated command, a line with the template's sprintf format and a line for
# each argument name (compile.EncodeRow). Each reference names one rule of
# the pack's module, so that evaluation never builds the whole module as a
# document.
_row_text := data.hcp.packs[input.pack_id].verbs[input.verb_key] if {
	_ = input.verb_key
} else := data.hcp.packs[input.pack_id].stimuli[input.stimulus]

_row_lines := split(_row_text, "\n")

# _row is the row's fields, decoded once, and where it stands (source).
_row := {
	"operation": words[0],
	"land": words[1],
	"gate": words[2],
	"confirm": _confirm_value[words[2]],
	"capability": words[3],
	"source": concat(":", [data.hcp.packs[input.pack_id].policy_file, words[4]]),
} if {
	words := split(_row_lines[0], " ")
}

_confirm_value := {"false": false, "true": true, "always": "always"}

# _row_template is the command's cli template: after " | " on the row's
# first line, or in the pack's cli rule when a token could not be written
# in a string; undefined when it has none.
_row_template := substring(_row_lines[0], i + 3, -1) if {
	i := indexof(_row_lines[0], " | ")
	i >= 0
} else := data.hcp.packs[input.pack_id].cli[input.verb_key]

# _row_format is a gated command's preview format (compile.PreviewText),
# and _row_names the arguments it takes, in order.
_row_format := _row_lines[1]

_row_names := array.slice(_row_lines, 2, count(_row_lines))
