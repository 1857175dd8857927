package matrix

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func render(t *testing.T, write func(*bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteTable(t *testing.T) {
	mx := compute(t, seed004(t), Options{})
	plain := render(t, func(b *bytes.Buffer) error { return WriteTable(b, mx, false) })
	want := `PACK  KIND  KEY                      role:guest  role:member  role:administrator  default
hub   verb  documents.search         allow       allow        allow               deny
hub   verb  buildsite.command_check  deny        allow        allow               deny
hub   verb  case-gateway.dispatch    deny        ask          ask                 deny
`
	if plain != want {
		t.Errorf("table:\n%s\nwant:\n%s", plain, want)
	}
	coloured := render(t, func(b *bytes.Buffer) error { return WriteTable(b, mx, true) })
	line := strings.Split(coloured, "\n")[3]
	wantLine := "hub   verb  case-gateway.dispatch    \x1b[31mdeny\x1b[0m        \x1b[33mask\x1b[0m          \x1b[33mask\x1b[0m                 \x1b[31mdeny\x1b[0m"
	if line != wantLine {
		t.Errorf("coloured line = %q, want %q", line, wantLine)
	}
	if strings.Split(coloured, "\n")[0] != strings.Split(want, "\n")[0] {
		t.Errorf("coloured header differs: %q", strings.Split(coloured, "\n")[0])
	}
}

func TestWriteMarkdown(t *testing.T) {
	mx := compute(t, seed004(t), Options{})
	got := render(t, func(b *bytes.Buffer) error { return WriteMarkdown(b, mx) })
	want := "**hcp-rego matrix**, mode `ask`\n\n" +
		"| pack | kind | key | `role:guest` | `role:member` | `role:administrator` | `default` |\n" +
		"| --- | --- | --- | --- | --- | --- | --- |\n" +
		"| `hub` | verb | `documents.search` | allow | allow | allow | deny |\n" +
		"| `hub` | verb | `buildsite.command_check` | deny | allow | allow | deny |\n" +
		"| `hub` | verb | `case-gateway.dispatch` | deny | ask | ask | deny |\n"
	if got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
}

// TestWriteJSON checks docs/matrix.md's shape by decoding into a generic
// value.
func TestWriteJSON(t *testing.T) {
	mx := compute(t, seed004(t), Options{Subjects: []string{"role:guest", "role:member"}})
	var got any
	if err := json.Unmarshal([]byte(render(t, func(b *bytes.Buffer) error { return WriteJSON(b, mx) })), &got); err != nil {
		t.Fatal(err)
	}
	row := func(key, guest, member string) map[string]any {
		return map[string]any{"pack_id": "hub", "kind": "verb", "key": key,
			"cells": map[string]any{"role:guest": guest, "role:member": member}}
	}
	want := map[string]any{
		"mode":     "ask",
		"subjects": []any{"role:guest", "role:member"},
		"rows": []any{
			row("documents.search", "allow", "allow"),
			row("buildsite.command_check", "deny", "allow"),
			row("case-gateway.dispatch", "deny", "ask"),
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSON = %v, want %v", got, want)
	}
	empty := render(t, func(b *bytes.Buffer) error { return WriteJSON(b, &Matrix{Mode: "run"}) })
	if empty != "{\n  \"mode\": \"run\",\n  \"subjects\": [],\n  \"rows\": []\n}\n" {
		t.Errorf("empty matrix JSON = %q", empty)
	}
}
