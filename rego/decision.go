package rego

// Decision is a decision document
// (docs/decisions.md#the-decision-document): Doc as the library returned
// it, which eval prints and case files match, and its members decoded
// once, so that hcp-rego reads them by name, never by string key.
type Decision struct {
	Doc map[string]any

	Allow bool
	Code  string
	Error string // "" when allowed

	PackID string
	Field  string // "verb_key" or "stimulus"; "" for invalid input
	Key    string

	// The row's fields, when a row was found (Row is set).
	Operation, Land, Capability string
	Confirm                     any // false, true or "always"; nil without a row

	Reasons     []any
	SourceRow   string // source.row: the row judged, "" when none
	SourceGrant string // source.grant: the grant that gave the capability, "" when none
	Preview     map[string]any
	CLI         string // preview.cli, "" when none
	Hint        string
}

// DecisionOf decodes a decision document, as the evaluator returned it or
// as a decision log recorded it; members of another type read as absent.
func DecisionOf(doc map[string]any) Decision {
	d := Decision{Doc: doc}
	d.Allow, _ = doc["allow"].(bool)
	d.Code, _ = doc["code"].(string)
	d.Error, _ = doc["error"].(string)
	d.PackID, _ = doc["pack_id"].(string)
	for _, field := range []string{"verb_key", "stimulus"} {
		if key, ok := doc[field].(string); ok {
			d.Field, d.Key = field, key
		}
	}
	d.Operation, _ = doc["operation"].(string)
	d.Land, _ = doc["land"].(string)
	d.Capability, _ = doc["capability"].(string)
	d.Confirm = doc["confirm"]
	d.Reasons, _ = doc["reasons"].([]any)
	source, _ := doc["source"].(map[string]any)
	d.SourceRow, _ = source["row"].(string)
	d.SourceGrant, _ = source["grant"].(string)
	d.Preview, _ = doc["preview"].(map[string]any)
	d.CLI, _ = d.Preview["cli"].(string)
	d.Hint, _ = doc["hint"].(string)
	return d
}
