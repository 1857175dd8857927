package bundles

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/regolimit"
)

// The files of a bundle that OPA's reader parses into values, by their
// name: data files, and the manifest, patch and signatures files (a name
// that ends in .manifest is a manifest). A JSON file that is not one of
// them is kept as bytes, or passed over.
const (
	dataFile       = "data.json"
	patchFile      = "patch.json"
	signaturesFile = ".signatures.json"
	manifestSuffix = ".manifest"
)

// parsedJSON reports whether OPA's reader parses the bundle file name as
// JSON. OPA parses the signatures file only when it checks a signature;
// it is counted, and must be JSON, either way.
func parsedJSON(name string) bool {
	switch base := filepath.Base(filepath.ToSlash(name)); base {
	case dataFile, patchFile, signaturesFile:
		return true
	default:
		return strings.HasSuffix(base, manifestSuffix)
	}
}

// uncounted says what the bundle file name is when OPA's reader parses it
// otherwise than as JSON, into values that are not counted: a YAML data
// file, or a protobuf manifest; "" for any other file.
func uncounted(name string) string {
	name = filepath.ToSlash(name)
	switch base := filepath.Base(name); {
	case base == "data.yaml" || base == "data.yml":
		return "a YAML data file"
	case strings.HasSuffix(name, ".manifest.pb"):
		return "a protobuf manifest"
	}
	return ""
}

// countValues counts, against the budget's limit of values, the values
// and member names of the bundle file name, which OPA's reader will parse,
// and those of the payload of a signature: a file that takes the bundle
// past the limit is refused before OPA builds its values. So is a file
// that OPA would read otherwise than as one JSON value (as YAML or
// protobuf, which are not counted): a YAML data file, a protobuf
// manifest, text that is not JSON, or more than one value.
func (b *budget) countValues(name string, data []byte) error {
	if what := uncounted(name); what != "" {
		return &DataError{Path: b.path, File: name, Msg: what + ": hcp-rego reads a bundle's data and manifest as JSON only, whose values it counts before OPA reads them"}
	}
	if !parsedJSON(name) {
		return nil
	}
	signatures := filepath.Base(filepath.ToSlash(name)) == signaturesFile
	// A bytes.Buffer is read in place, never written (jsontext.NewDecoder).
	dec := jsontext.NewDecoder(bytes.NewBuffer(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		start := tokenStart(data, dec.InputOffset())
		tok, err := dec.ReadToken()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return b.notJSON(name, data, err)
		}
		if _, n := dec.StackIndex(0); n > 1 {
			return &DataError{Path: b.path, File: name, Pos: document.PosAt(data, start), Msg: "invalid JSON: more than one value"}
		}
		switch tok.Kind() {
		case '}', ']':
			continue
		case '"':
			if signatures {
				if err := b.countPayload(name, stringText(tok, data[start:dec.InputOffset()])); err != nil {
					return err
				}
			}
		}
		if err := b.add(name); err != nil {
			return err
		}
	}
}

// countPayload counts the values of the payload of token, a string of the
// signatures file, when it is a compact JWT: OPA's verifier parses the
// payload before it checks the signature. A payload that is not base64 or
// not JSON counts no further: OPA's verifier refuses it before it builds
// a value. The payload is decoded as it is read.
func (b *budget) countPayload(name string, token []byte) error {
	_, rest, ok := bytes.Cut(token, []byte("."))
	payload, _, ok2 := bytes.Cut(rest, []byte("."))
	if !ok || !ok2 {
		return nil
	}
	dec := jsontext.NewDecoder(base64.NewDecoder(base64.RawURLEncoding, bytes.NewReader(payload)), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		if k := tok.Kind(); k == '}' || k == ']' {
			continue
		}
		if err := b.add(name); err != nil {
			return err
		}
	}
}

// stringText is the text of the string token tok, whose JSON is raw: raw
// without its quotes when it has no escape, which costs no copy.
func stringText(tok jsontext.Token, raw []byte) []byte {
	if len(raw) < 2 || bytes.IndexByte(raw, '\\') >= 0 {
		return []byte(tok.String())
	}
	return raw[1 : len(raw)-1]
}

// add counts one value of the file name.
func (b *budget) add(name string) error {
	if b.values++; b.values > b.lim.Values {
		return &LimitError{Path: b.path, File: name, Limit: b.lim.Values, Values: true}
	}
	return nil
}

// notJSON is the error for a file that err, the token reader's, finds is
// not JSON.
func (b *budget) notJSON(name string, data []byte, err error) error {
	msg, at := err.Error(), int64(len(data))
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		at = syn.ByteOffset
		if syn.Err != nil {
			msg = syn.Err.Error()
		}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of file"
	}
	return &DataError{Path: b.path, File: name, Pos: document.PosAt(data, int(at)), Msg: "invalid JSON: " + msg}
}

// tokenStart is the offset at which the token after offset starts: past
// white space and the comma or colon before it.
func tokenStart(data []byte, offset int64) int {
	i := int(offset)
	for i < len(data) && strings.IndexByte(" \t\r\n,:", data[i]) >= 0 {
		i++
	}
	return i
}

// DataError is Read's error for a file of a bundle whose values cannot be
// counted before OPA's reader parses them.
type DataError struct {
	Path string      // the bundle
	File string      // the file, as the bundle names it
	Pos  problem.Pos // where in the file, when there is a place
	Msg  string
}

func (e *DataError) Error() string {
	path, file := printable.LineStart(e.Path), printable.Quote(strings.TrimPrefix(e.File, "/"))
	if e.Pos.Line == 0 {
		return fmt.Sprintf("%s: bundle refused: %s: %s", path, file, e.Msg)
	}
	return fmt.Sprintf("%s: bundle refused: %s:%d:%d: %s", path, file, e.Pos.Line, e.Pos.Col, e.Msg)
}

// countTerms counts, against the budget's limit of terms, the terms of
// the bundle file name when it is a Rego module, which OPA parses when
// the bundle is used (regolimit.RegoTerms): a module that takes the bundle
// past the limit is refused, at the token that passes it, before anything
// is parsed.
func (b *budget) countTerms(name string, data []byte) error {
	if !strings.HasSuffix(name, bundle.RegoExt) {
		return nil
	}
	n, at := regolimit.RegoTerms(data, b.lim.Terms-b.terms)
	if at >= 0 {
		return &LimitError{Path: b.path, File: name, Limit: b.lim.Terms, Terms: true, Pos: document.PosAt(data, at)}
	}
	b.terms += n
	return nil
}
