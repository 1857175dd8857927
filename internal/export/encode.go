package export

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/BurntSushi/toml"
)

// encodeJSON writes v as JSON indented by two spaces, without HTML
// escapes, ending in a newline. Struct fields keep their declared order.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode JSON: %w", err)
	}
	return b.Bytes(), nil
}

// encodeTOML writes v as TOML with no indentation of nested tables. Struct
// fields keep their declared order; map keys are sorted.
func encodeTOML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := toml.NewEncoder(&b)
	enc.Indent = ""
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode TOML: %w", err)
	}
	return b.Bytes(), nil
}
