package compile

import (
	"github.com/hcp-rego/hcp-rego/internal/document"
)

// loadGrants reads and validates one grant file and returns its grants,
// numbered from 1 in the file (Load gives them their place in the run),
// and the file's sha256.
func loadGrants(path string, budget *document.Budget) ([]*Grant, string, error) {
	root, sum, err := readChecked(path, "grants", budget)
	if err != nil {
		return nil, "", err
	}
	var grants []*Grant
	for i, n := range root.Field("grants").Members() {
		grants = append(grants, &Grant{
			File:         path,
			N:            i + 1,
			Line:         n.Pos.Line,
			Subject:      n.Field("subject").Text,
			Tenant:       n.Field("tenant").Str(),
			PackID:       n.Field("pack_id").Text,
			VerbKey:      n.Field("verb_key").Str(),
			Stimulus:     n.Field("stimulus").Str(),
			Capabilities: n.Field("capabilities").Strings(),
			node:         n,
		})
	}
	return grants, sum, nil
}
