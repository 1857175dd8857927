package replay

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

var errTrailing = errors.New("text after the JSON value")

// The paths whose events replay (docs/replay.md), as OPA logs them.
const (
	DecisionPath = "hcp/authz/decision"
	AllowPath    = "hcp/authz/allow"
)

// Reason is why an event does not replay.
type Reason int

// The reasons of docs/replay.md, in the order the output lists them.
const (
	Replays    Reason = iota // the event replays
	OtherPath                // another path, or not a decision event at all
	Errored                  // the event carries an error
	Masked                   // part of its input was erased or masked
	Unreadable               // not a JSON object
)

// Event is a decision event that replays: its input, and what the logged
// decision said.
type Event struct {
	DecisionID string
	// Input is the input as logged: the bytes of the record's text, valid
	// as long as the text is. It is decoded only to be decided.
	Input     jsontext.Value
	Logged    Outcome // the logged decision
	AllowOnly bool    // logged from hcp/authz/allow: only allow or not is known
}

// Call names what a decision was about: the group it falls in.
type Call struct {
	PackID string
	Kind   string // verb or stimulus
	Key    string
}

// eventFields are the fields of an event that replay reads, as logged.
type eventFields struct {
	hasID, hasError, hasInput bool
	id, path                  string
	text, input               []byte           // the event's text, and the input's bytes in it
	masks                     []jsontext.Value // erased and masked
	result                    Kind             // of the logged result; 0 when absent
	decision                  Outcome          // the result, when it is a decision document
	hasCode                   bool             // whether that document has a string code
}

// Kind is the kind of a JSON value as jsontext gives it: '{', '"', 't' ...
type Kind = jsontext.Kind

// eventOptions read an event as leniently as encoding/json would: a
// duplicate name (the last wins) and invalid UTF-8 do not make it
// unreadable.
var eventOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// decoders are the event decoders of idle workers: a decoder holds
// buffers that are worth keeping from one event to the next.
var decoders = sync.Pool{New: func() any { return jsontext.NewDecoder(bytes.NewBuffer(nil)) }}

// decoderOf is a decoder of text, from the pool.
func decoderOf(text []byte) *jsontext.Decoder {
	dec := decoders.Get().(*jsontext.Decoder)
	dec.Reset(bytes.NewBuffer(text), eventOptions...)
	return dec
}

// release returns dec to the pool, without the text it read.
func release(dec *jsontext.Decoder) {
	dec.Reset(bytes.NewBuffer(nil))
	decoders.Put(dec)
}

// Classify reads one record as a decision event. It returns the event when
// it replays, and otherwise the reason it does not.
func Classify(text []byte) (*Event, Reason) {
	dec := decoderOf(text)
	f, ok := readEvent(dec, text)
	release(dec)
	if !ok {
		return nil, Unreadable // not JSON, or JSON but not an object
	}
	switch {
	case !f.hasID:
		return nil, OtherPath // one of OPA's own log lines
	case f.path != DecisionPath && f.path != AllowPath:
		return nil, OtherPath
	case f.hasError:
		return nil, Errored
	case slices.ContainsFunc(f.masks, masksInput):
		return nil, Masked
	case !f.hasInput:
		return nil, Masked // no input logged: nothing to judge, and never guessed
	}
	ev := &Event{DecisionID: f.id, AllowOnly: f.path == AllowPath, Input: f.input}
	logged, ok := f.logged(ev.AllowOnly)
	if !ok {
		return nil, OtherPath // a result that is not our decision's
	}
	ev.Logged = logged
	return ev, Replays
}

// readEvent reads the fields of one event, skipping the others without
// decoding them. It reports false unless the text is one JSON object.
func readEvent(dec *jsontext.Decoder, text []byte) (eventFields, bool) {
	f := eventFields{text: text}
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return f, false
	}
	for dec.PeekKind() != '}' {
		name, err := readName(dec)
		if err != nil {
			return f, false
		}
		if err := f.read(dec, name); err != nil {
			return f, false
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return f, false
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return f, false // text after the object
	}
	return f, true
}

// readName reads an object member's name. It returns the name's bytes
// in the decoder's buffer, valid until the next read: comparing them with
// switch string(name) allocates nothing.
func readName(dec *jsontext.Decoder) ([]byte, error) {
	v, err := dec.ReadValue()
	if err != nil || v.Kind() != '"' {
		return nil, errors.New("not a name")
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1], nil
	}
	return jsontext.AppendUnquote(nil, v)
}

// read reads the value of the field name.
func (f *eventFields) read(dec *jsontext.Decoder, name []byte) error {
	var err error
	var v jsontext.Value
	switch string(name) {
	case "decision_id":
		f.hasID = true
		f.id, err = readText(dec)
	case "path":
		f.path, err = readText(dec)
	case "error":
		f.hasError = dec.PeekKind() != 'n'
		err = dec.SkipValue()
	case "input":
		start := dec.InputOffset()
		v, err = dec.ReadValue()
		f.hasInput = v.Kind() != 'n'
		// The input's own bytes in the text, not the decoder's copy: the
		// event keeps them without copying.
		f.input = bytes.TrimLeft(f.text[start:dec.InputOffset()], " \t\r\n:")
	case "result":
		f.result = dec.PeekKind()
		if f.result == '{' {
			f.decision, f.hasCode, err = readDecision(dec)
		} else {
			err = dec.SkipValue()
		}
	case "erased", "masked":
		v, err = dec.ReadValue()
		f.masks = append(f.masks, v.Clone())
	default:
		err = dec.SkipValue()
	}
	return err
}

// readText reads a value as text: a string as it is, any other value as
// its JSON.
func readText(dec *jsontext.Decoder) (string, error) {
	if dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		return tok.String(), err
	}
	v, err := dec.ReadValue()
	return string(v), err
}

// canonicalKey is the input's canonical JSON: members sorted, strings in
// their shortest form, no space, and numbers as written, since a number's
// text can change a decision (a preview keeps it). An input that jsontext
// will not canonicalize (a duplicate name, invalid UTF-8) gets
// encoding/json's reading of it, the one that is decided, re-encoded.
func canonicalKey(input jsontext.Value) []byte {
	key := input.Clone()
	if err := key.Canonicalize(jsontext.CanonicalizeRawInts(false), jsontext.CanonicalizeRawFloats(false)); err == nil {
		return key
	}
	var v any
	if unmarshal(input, &v) != nil {
		return input
	}
	key, err := canonical(v)
	if err != nil {
		return input
	}
	return key
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

func isNull(raw jsontext.Value) bool { return raw.Kind() == 'n' }

// masksInput reports whether a list of JSON pointers (erased or masked)
// names the input or something under it.
func masksInput(raw jsontext.Value) bool {
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
		return kept(v)
	}
	text, _ := canonical(v)
	return kept(string(text))
}

// keptLen is the most of a call's field, row or preview that replay keeps
// as it is, of each distinct input and group: a logged input is the
// caller's, and a megabyte verb_key in each of a few thousand events would
// otherwise be held in full by each.
const keptLen = 128

// keptHead is how much of a longer text its short form begins with.
const keptHead = 64

// kept is s when it is at most keptLen bytes, else its short form: its
// first bytes, its length and its whole sha256. Texts that differ stay
// different: a short form is longer than keptLen (at least 149 bytes), so
// a text written as another's short form is itself longer than keptLen
// and is kept by its own sha256.
func kept(s string) string {
	if len(s) <= keptLen {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	head := strings.ToValidUTF8(s[:keptHead], "")
	return fmt.Sprintf("%s… (%d bytes, sha256 %x)", head, len(s), sum)
}
