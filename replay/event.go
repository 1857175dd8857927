package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

var errTrailing = errors.New("text after the JSON value")

// The paths whose events replay (SPEC §5.5), as OPA logs them.
const (
	DecisionPath = "hcp/authz/decision"
	AllowPath    = "hcp/authz/allow"
)

// Reason is why an event does not replay.
type Reason int

// The reasons of SPEC §5.5, in the order the output lists them.
const (
	Replays    Reason = iota // the event replays
	OtherPath                // another path, or not a decision event at all
	Errored                  // the event carries an error
	Masked                   // part of its input was erased or masked
	Unreadable               // not a JSON object
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

// Event is a decision event that replays: its input, and what the logged
// decision said.
type Event struct {
	DecisionID string
	Input      any     // decoded with numbers as json.Number
	Key        []byte  // the input's canonical JSON
	Logged     Outcome // the logged decision
	Call       Call    // what was called
	AllowOnly  bool    // logged from hcp/authz/allow: only allow or not is known
}

// Call names what a decision was about: the group it falls in.
type Call struct {
	PackID string
	Kind   string // verb or stimulus
	Key    string
}

// Outcome is what a change is judged on: the disposition, the code, and
// the canonical JSON of source.row and preview.cli ("" when absent).
type Outcome struct {
	Disposition Disposition
	Code        string
	Row, CLI    string
}

// Classify reads one record as a decision event. It returns the event when
// it replays, and otherwise the reason it does not.
func Classify(text []byte) (*Event, Reason) {
	var fields map[string]json.RawMessage
	if err := unmarshal(text, &fields); err != nil || fields == nil {
		return nil, Unreadable // not JSON, or JSON but not an object
	}
	id, ok := fields["decision_id"]
	if !ok {
		return nil, OtherPath // one of OPA's own log lines
	}
	var path string
	_ = unmarshal(fields["path"], &path)
	if path != DecisionPath && path != AllowPath {
		return nil, OtherPath
	}
	if raw, ok := fields["error"]; ok && !isNull(raw) {
		return nil, Errored
	}
	if masksInput(fields["erased"]) || masksInput(fields["masked"]) {
		return nil, Masked
	}
	raw, ok := fields["input"]
	if !ok || isNull(raw) {
		return nil, Masked // no input logged: nothing to judge, and never guessed
	}
	ev := &Event{DecisionID: decisionID(id), AllowOnly: path == AllowPath}
	if unmarshal(raw, &ev.Input) != nil {
		return nil, Unreadable
	}
	logged, ok := loggedOutcome(fields["result"], ev.AllowOnly)
	if !ok {
		return nil, OtherPath // a result that is not our decision's
	}
	ev.Logged = logged
	key, err := canonical(ev.Input)
	if err != nil {
		return nil, Unreadable
	}
	ev.Key = key
	ev.Call = callOf(ev.Input)
	return ev, Replays
}

// unmarshal decodes JSON keeping numbers as they are written.
func unmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errTrailing
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// masksInput reports whether a list of JSON pointers (erased or masked)
// names the input or something under it.
func masksInput(raw json.RawMessage) bool {
	if raw == nil {
		return false
	}
	var paths []any
	if unmarshal(raw, &paths) != nil {
		return !isNull(raw) // a list that cannot be read could name anything
	}
	for _, p := range paths {
		s, ok := p.(string)
		if !ok || s == "/input" || strings.HasPrefix(s, "/input/") {
			return true
		}
	}
	return false
}

// decisionID is the event's decision_id as text: a string as it is, any
// other value as its JSON.
func decisionID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// loggedOutcome reads the logged result: a decision document for the
// decision path, a boolean for the allow path.
func loggedOutcome(raw json.RawMessage, allowOnly bool) (Outcome, bool) {
	if raw == nil {
		return Outcome{}, false
	}
	if allowOnly {
		var allow bool
		if json.Unmarshal(raw, &allow) != nil {
			return Outcome{}, false
		}
		if allow {
			return Outcome{Disposition: Allow, Code: "allow"}, true
		}
		return Outcome{Disposition: Deny, Code: "not_allow"}, true
	}
	var doc map[string]any
	if unmarshal(raw, &doc) != nil || doc == nil {
		return Outcome{}, false
	}
	code, ok := doc["code"].(string)
	if !ok {
		return Outcome{}, false
	}
	return outcomeOf(doc, code), true
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

// fieldText is the canonical JSON of doc[outer][inner], "" when absent.
func fieldText(doc map[string]any, outer, inner string) string {
	o, _ := doc[outer].(map[string]any)
	v, ok := o[inner]
	if !ok {
		return ""
	}
	text, err := canonical(v)
	if err != nil {
		return ""
	}
	return string(text)
}

// canonical is v's canonical JSON: object keys sorted, numbers as written,
// no HTML escaping, no space.
func canonical(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// callOf names the call of an input as the decision library does: a verb
// when it has a verb_key, a stimulus otherwise. A value that is not a
// string is shown as its JSON.
func callOf(input any) Call {
	doc, _ := input.(map[string]any)
	c := Call{PackID: textOf(doc["pack_id"]), Kind: "stimulus", Key: textOf(doc["stimulus"])}
	if v, ok := doc["verb_key"]; ok {
		c.Kind, c.Key = "verb", textOf(v)
	}
	return c
}

func textOf(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	text, _ := canonical(v)
	return string(text)
}
