package replay

import (
	"github.com/go-json-experiment/json/jsontext"
)

// Disposition is how permissive a decision is: deny < ask < allow.
type Disposition int

// The dispositions, least permissive first.
const (
	Deny Disposition = iota
	Ask
	Allow
)

// dispositionOf is the disposition of a decision code.
func dispositionOf(code string) Disposition {
	switch code {
	case "allowed":
		return Allow
	case "confirm_required":
		return Ask
	}
	return Deny
}

// Outcome is what a change is judged on: the disposition, the code, and
// source.row and preview.cli as text ("" when absent; see valueText).
type Outcome struct {
	Disposition Disposition
	Code        string
	Row, CLI    string
}

// logged is the logged result's outcome: a decision document for the
// decision path, a boolean for the allow path.
func (f *eventFields) logged(allowOnly bool) (Outcome, bool) {
	switch {
	case !allowOnly:
		return f.decision, f.result == '{' && f.hasCode
	case f.result == 't':
		return Outcome{Disposition: Allow, Code: "allow"}, true
	case f.result == 'f':
		return Outcome{Disposition: Deny, Code: "not_allow"}, true
	}
	return Outcome{}, false
}

// readDecision reads a logged decision document: its code, and its
// source.row and preview.cli as valueText gives them. It reports whether
// the code is a string.
func readDecision(dec *jsontext.Decoder) (Outcome, bool, error) {
	var o Outcome
	hasCode := false
	if _, err := dec.ReadToken(); err != nil {
		return o, false, err
	}
	for dec.PeekKind() != '}' {
		name, err := readName(dec)
		if err != nil {
			return o, false, err
		}
		switch string(name) {
		case "code":
			hasCode = dec.PeekKind() == '"'
			o.Code, err = readText(dec)
		case "source":
			o.Row, err = memberText(dec, "row")
		case "preview":
			o.CLI, err = memberText(dec, "cli")
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return o, false, err
		}
	}
	_, err := dec.ReadToken()
	o.Disposition = dispositionOf(o.Code)
	return o, hasCode, err
}

// memberText reads an object and returns its member name as valueText
// gives it: "" when the value is not an object or has no such member.
func memberText(dec *jsontext.Decoder, name string) (string, error) {
	if dec.PeekKind() != '{' {
		return "", dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return "", err
	}
	text := ""
	for dec.PeekKind() != '}' {
		n, err := readName(dec)
		if err != nil {
			return "", err
		}
		if string(n) != name {
			if err := dec.SkipValue(); err != nil {
				return "", err
			}
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			return "", err
		}
		text = rawText(v)
	}
	_, err := dec.ReadToken()
	return text, err
}

// rawText is valueText of a logged JSON value.
func rawText(v jsontext.Value) string {
	if v.Kind() == '"' {
		if s, err := jsontext.AppendUnquote(nil, v); err == nil {
			return kept("s:" + string(s))
		}
	}
	var decoded any
	if unmarshal(v, &decoded) != nil {
		return kept("j:" + string(v))
	}
	return valueText(decoded)
}

// valueText is the text a row or preview compares by: "s:" and a string,
// or "j:" and the canonical JSON of any other value, as kept keeps it.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return kept("s:" + s)
	}
	text, _ := canonical(v)
	return kept("j:" + string(text))
}

// outcomeOf is the outcome of a decision document whose code is code.
func outcomeOf(doc map[string]any, code string) Outcome {
	return Outcome{
		Disposition: dispositionOf(code),
		Code:        code,
		Row:         fieldText(doc, "source", "row"),
		CLI:         fieldText(doc, "preview", "cli"),
	}
}

// fieldText is valueText of doc[outer][inner], "" when absent.
func fieldText(doc map[string]any, outer, inner string) string {
	o, _ := doc[outer].(map[string]any)
	v, ok := o[inner]
	if !ok {
		return ""
	}
	return valueText(v)
}
