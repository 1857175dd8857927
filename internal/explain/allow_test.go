package explain

import (
	"encoding/json"
	"strings"
	"testing"

	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

func decode(t *testing.T, text string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRuleMismatch checks the reason given for each way an exact allow
// rule can fail to match a call, and "" for a match.
func TestRuleMismatch(t *testing.T) {
	call := readCall(decode(t, `{"principal": {"id": "a"}, "pack_id": "ledger", "verb_key": "transfer",
		"args": {"amount": "2.80", "payee": "demo"}}`))
	tests := []struct{ rule, want string }{
		{`{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "demo"}, "limits": {"amount": {"max": 5}}}`, ""},
		{`{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "demo", "amount": 2.8}}`, `argument "amount" is "2.80", the rule pins 2.8`},
		{`{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "demo"}}`, `argument "amount" is neither pinned nor limited`},
		{`{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "demo"}, "limits": {"amount": {"min": "3"}}}`, `argument "amount" is "2.80", below min "3"`},
		{`{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "demo"}, "limits": {"amount": {"max": 2}}}`, `argument "amount" is "2.80", above max 2`},
		{`{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "demo"}, "limits": {"amount": {"max": true}}}`, `limits["amount"] must hold only numbers min and max`},
		{`{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "other"}, "limits": {"amount": {}}}`, `argument "payee" is "demo", the rule pins "other"`},
		{`{"pack_id": "ledger", "verb_key": "transfer", "args": {"note": "x"}}`, `pinned argument "note" is not in the call`},
		{`{"pack_id": "mail", "verb_key": "transfer"}`, `pack_id "mail" is not "ledger"`},
		{`{"pack_id": "ledger", "verb_key": "refund"}`, `verb_key "refund" is not "transfer"`},
		{`{"pack_id": "ledger", "verb_key": "transfer", "limit": {}}`, `unknown field "limit"`},
		{`"ledger"`, `it is not an object`},
		{`{"pack_id": "ledger", "verb_key": "transfer", "args": null}`, `args and limits must be objects`},
		{`{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "demo"}, "limits": null}`, `args and limits must be objects`},
	}
	for _, tt := range tests {
		if got := ruleMismatch(decode(t, tt.rule), call); got != tt.want {
			t.Errorf("rule %s:\n got  %q\n want %q", tt.rule, got, tt.want)
		}
	}
}

// Pinned values compare as Rego's == does: numbers by value inside
// objects and arrays too.
func TestRuleMismatchNestedNumbers(t *testing.T) {
	call := readCall(decode(t, `{"principal": {"id": "a"}, "pack_id": "p", "verb_key": "send",
		"args": {"amount": {"a": 1.0, "b": [1.50, "x"]}}}`))
	tests := []struct{ rule, want string }{
		{`{"pack_id": "p", "verb_key": "send", "args": {"amount": {"a": 1, "b": [1.5, "x"]}}}`, ""},
		{`{"pack_id": "p", "verb_key": "send", "args": {"amount": {"a": 1, "b": [1.5, "y"]}}}`, `argument "amount" is {"a":1.0,"b":[1.50,"x"]}, the rule pins {"a":1,"b":[1.5,"y"]}`},
		{`{"pack_id": "p", "verb_key": "send", "args": {"amount": {"a": "1", "b": [1.5, "x"]}}}`, `argument "amount" is {"a":1.0,"b":[1.50,"x"]}, the rule pins {"a":"1","b":[1.5,"x"]}`},
	}
	for _, tt := range tests {
		if got := ruleMismatch(decode(t, tt.rule), call); got != tt.want {
			t.Errorf("rule %s:\n got  %q\n want %q", tt.rule, got, tt.want)
		}
	}
}

// Numbers compare exactly, and only up to 64 characters (docs/decisions.md
// item 8), as the decision does.
func TestRuleMismatchExactNumbers(t *testing.T) {
	long := "1" + strings.Repeat("0", 64)
	call := readCall(decode(t, `{"principal": {"id": "a"}, "pack_id": "p", "verb_key": "send",
		"args": {"amount": 12.500000000000000010, "big": `+long+`}}`))
	tests := []struct{ rule, want string }{
		{`{"pack_id": "p", "verb_key": "send", "args": {"amount": 12.500000000000000010, "big": ` + long + `}}`, ""},
		{`{"pack_id": "p", "verb_key": "send", "args": {"amount": 12.50, "big": ` + long + `}}`, `argument "amount" is 12.500000000000000010, the rule pins 12.50`},
		{`{"pack_id": "p", "verb_key": "send", "args": {"big": ` + long + `}, "limits": {"amount": {"max": "12.50"}}}`, `argument "amount" is 12.500000000000000010, above max "12.50"`},
		{`{"pack_id": "p", "verb_key": "send", "args": {"amount": 12.500000000000000010}, "limits": {"big": {"min": 0}}}`, `argument "big" is ` + long + `, not a number of at most 64 characters`},
		{`{"pack_id": "p", "verb_key": "send", "args": {"amount": 12.500000000000000010, "big": ` + long + `0e-1}}`, `argument "big" is ` + long + `, the rule pins ` + long + `0e-1`},
	}
	for _, tt := range tests {
		if got := ruleMismatch(decode(t, tt.rule), call); got != tt.want {
			t.Errorf("rule %s:\n got  %q\n want %q", tt.rule, got, tt.want)
		}
	}
}

// TestDescribeLand checks what the land step says for each land and fact.
func TestDescribeLand(t *testing.T) {
	tests := []struct{ land, input, want string }{
		{"personal", `{"principal": {"id": "a"}, "owner": "a"}`, `personal land: owner "a" is the principal`},
		{"personal", `{"principal": {"id": "a"}}`, `personal land: owner is missing`},
		{"personal", `{"principal": {"id": "a"}, "owner": "b"}`, `personal land: owner "b" is not the principal "a"`},
		{"brain", `{"principal": {"id": "a", "projects": ["p1"]}, "project_id": "p2"}`, `brain land: project "p2" is not in principal.projects`},
		{"brain", `{"principal": {"id": "a"}}`, `brain land: project_id is missing`},
		{"local", `{"principal": {"id": "a"}, "workspace": {"root": "/w/p/"}}`, `local land: workspace.root "/w/p/" is not absolute and clean`},
		{"local", `{"principal": {"id": "a"}, "workspace": {"root": "/w/p", "paths": ["/w/p2/x"]}}`, `local land: workspace.root "/w/p" | path "/w/p2/x" is not below the root`},
	}
	for _, tt := range tests {
		got := strings.Join(describeLand(readCall(decode(t, tt.input)), hcprego.DecisionOf(map[string]any{"land": tt.land})), " | ")
		if got != tt.want {
			t.Errorf("%s %s:\n got  %q\n want %q", tt.land, tt.input, got, tt.want)
		}
	}
}
