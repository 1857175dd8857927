package rego_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// shellSafe are the characters an argument may hold and stay unquoted in
// preview.cli (docs/decisions.md), written out one by one.
const shellSafe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/:@%+=,-"

// TestPreviewQuotesEachCharacter renders an argument holding each
// printable ASCII character, and a few others, in both ways the library
// renders a cli: by sprintf (every argument a string) and token by token
// (an argument that is a number). A word is single-quoted exactly when it
// holds a character outside shellSafe, and Rego agrees with the reference.
func TestPreviewQuotesEachCharacter(t *testing.T) {
	p := newPair(t, diffModel(t), "", reference.Ext{})
	chars := []rune{'é', '\t', '\n', 0x7f, '日'}
	for c := rune(0x20); c < 0x7f; c++ {
		chars = append(chars, c)
	}
	for _, c := range chars {
		word := "a" + string(c) + "b"
		want := word
		if !strings.ContainsRune(shellSafe, c) {
			want = "'" + strings.ReplaceAll(word, "'", `'\''`) + "'"
		}
		for _, payee := range []any{"x", 5} {
			args, _ := json.Marshal(map[string]any{"amount": word, "payee": payee})
			text := `{"principal": {"id": "alice"}, "pack_id": "alpha", "verb_key": "write.personal.always", "owner": "alice", "args": ` + string(args) + `}`
			got, diff := p.compare(decodeText(t, text))
			if diff != "" {
				t.Errorf("Rego and the reference disagree on %s:\n%s", text, diff)
			}
			preview, _ := got["preview"].(map[string]any)
			cli := "alpha write.personal.always " + want + " --to " + fmt.Sprint(payee) + " --apply"
			if preview["cli"] != cli {
				t.Errorf("%q, payee %v: preview.cli %q, want %q", word, payee, preview["cli"], cli)
			}
		}
	}
}
