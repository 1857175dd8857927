package compile

import (
	"regexp"
	"strings"
)

// packsData builds data.hcp_packs, what the decision library reads of each
// pack (rego/library/row.rego): its rows by kind and key, each with named
// fields, so that an auditor reads a row by name with its source beside it
// and a sidecar compiles no Rego for the packs (docs/rego.md):
//
//	hcp_packs[pack].verbs[key]    a command's row
//	hcp_packs[pack].stimuli[key]  a trigger's row
//
// A row holds operation, land, confirm (false, true or "always", as
// written), capability (what a caller must hold), source (the row's
// policy.json file and line) and, for a command with one, cli: the
// manifest's cli template, its tokens as written. A gated command's row
// also holds what its preview.cli needs that does not depend on the call:
// preview_format, the template as a sprintf format (each {name} token a
// %s, a literal % doubled, --confirm appended when the template has
// neither --confirm nor --apply), and preview_args, the names of its
// arguments in order, so that a call that gives every one renders it with
// one sprintf.
func packsData(m *Model) map[string]any {
	out := make(map[string]any, len(m.packs))
	for _, p := range m.packs {
		out[p.ID] = map[string]any{"verbs": rowsData(p.Verbs), "stimuli": rowsData(p.Stimuli)}
	}
	return out
}

// rowsData is the rows of one kind, by key.
func rowsData(rows map[string]*Row) map[string]any {
	out := make(map[string]any, len(rows))
	for key, r := range rows {
		out[key] = rowData(r)
	}
	return out
}

// rowData is one row's named fields.
func rowData(r *Row) map[string]any {
	row := map[string]any{
		"operation":  r.Operation,
		"land":       r.Land,
		"confirm":    r.Gate.JSON(),
		"capability": r.Capability(),
		"source":     r.Source(),
	}
	if r.CLI != nil {
		cli := make([]any, len(r.CLI))
		for i, token := range r.CLI {
			cli[i] = token
		}
		row["cli"] = cli
		if r.Gate != NoGate {
			row["preview_format"], row["preview_args"] = previewFormat(r.CLI)
		}
	}
	return row
}

// previewFormat is a gated command's preview format and argument names.
func previewFormat(cli []string) (string, []any) {
	words, names := make([]string, len(cli)), []any{}
	for i, token := range cli {
		if placeholder.MatchString(token) {
			words[i] = "%s"
			names = append(names, token[1:len(token)-1])
		} else {
			words[i] = strings.ReplaceAll(token, "%", "%%")
		}
	}
	if !takesConfirm(cli) {
		words = append(words, "--confirm")
	}
	return strings.Join(words, " "), names
}

// placeholder is a cli token that stands for an argument: {name}.
var placeholder = regexp.MustCompile(`^\{[^{}]+\}$`)
