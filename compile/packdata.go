package compile

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
// manifest's cli template, its tokens as written.
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
	}
	return row
}
