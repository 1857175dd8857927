# The generated row of the call, decoded once (docs/rego.md shows a pack's
# module).
package hcp.authz

# _row_text is the row's text: "operation land confirm capability line",
# then " | " and the cli template for commands that have one, then, for a
# gated command, a line with the template's sprintf format and a line for
# each argument name. A pack's module holds one rule, pack, whose value
# is written out in full: evaluation reads it as it is, never builds the
# package as a document, and OPA checks one rule path a pack when a
# sidecar replaces a revision (docs/bundles.md).
_row_text := data.hcp.packs[input.pack_id].pack.verbs[input.verb_key] if {
	_ = input.verb_key
} else := data.hcp.packs[input.pack_id].pack.stimuli[input.stimulus]

# _row is the row decoded, in one rule (each rule a decision evaluates
# costs it more than the builtins in its body): its fields, where it
# stands (source), its first line, and for a gated command the preview's
# sprintf format ("" when it has none) and the arguments it takes, in
# order.
_row := {
	"operation": words[0],
	"land": words[1],
	"gate": words[2],
	"confirm": {"false": false, "true": true, "always": "always"}[words[2]],
	"capability": words[3],
	"source": concat(":", [data.hcp.packs[input.pack_id].pack.policy_file, words[4]]),
	"head": lines[0],
	"format": concat("", array.slice(lines, 1, 2)),
	"names": array.slice(lines, 2, count(lines)),
} if {
	lines := split(_row_text, "\n")
	words := split(lines[0], " ")
}

# _row_template is the command's cli template: after " | " on the row's
# first line, or in the pack's cli rule when a token could not be written
# in a string; undefined when it has none.
_row_template := substring(_row.head, i + 3, -1) if {
	i := indexof(_row.head, " | ")
	i >= 0
} else := data.hcp.packs[input.pack_id].pack.cli[input.verb_key]
