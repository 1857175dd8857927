package reference

import "testing"

// TestRenderCLI fills cli templates (docs/decisions.md item 9).
func TestRenderCLI(t *testing.T) {
	transfer := []string{"ledger", "transfer", "{amount}", "--to", "{payee}", "--confirm"}
	tests := []struct {
		name     string
		template []string
		args     string // JSON object, or "" for no args
		want     string
	}{
		{"both arguments", transfer, `{ "amount": "2.80", "payee": "demo-transit" }`, "ledger transfer 2.80 --to demo-transit --confirm"},
		{"absent argument drops its flag", transfer, `{ "amount": "2.80" }`, "ledger transfer 2.80 --confirm"},
		{"absent argument without a flag", transfer, `{ "payee": "demo" }`, "ledger transfer --to demo --confirm"},
		{"no args", transfer, "", "ledger transfer --confirm"},
		{"empty args", transfer, `{}`, "ledger transfer --confirm"},
		{"space quoted", transfer, `{ "amount": "1", "payee": "a b" }`, "ledger transfer 1 --to 'a b' --confirm"},
		{"single quote", transfer, `{ "amount": "1", "payee": "it's" }`, `ledger transfer 1 --to 'it'\''s' --confirm`},
		{"empty string quoted", transfer, `{ "amount": "", "payee": "x" }`, "ledger transfer '' --to x --confirm"},
		{"shell expansion quoted", transfer, `{ "amount": "$HOME", "payee": "a;b" }`, "ledger transfer '$HOME' --to 'a;b' --confirm"},
		{"newline quoted", transfer, `{ "amount": "a\nb" }`, "ledger transfer 'a\nb' --confirm"},
		{"safe characters unquoted", transfer, `{ "amount": "-1", "payee": "a,b=c:d@e%f+g/h.i_j-k" }`, "ledger transfer -1 --to a,b=c:d@e%f+g/h.i_j-k --confirm"},
		{"non-ASCII quoted", transfer, `{ "amount": "1", "payee": "café" }`, "ledger transfer 1 --to 'café' --confirm"},
		{"a value that looks like a flag", transfer, `{ "amount": "--to", "payee": "x" }`, "ledger transfer --to --to x --confirm"},
		{"JSON numbers keep their text", transfer, `{ "amount": 2.80, "payee": 1e3 }`, "ledger transfer 2.80 --to 1e3 --confirm"},
		{"negative number", transfer, `{ "amount": -0.5 }`, "ledger transfer -0.5 --confirm"},
		{"booleans and null", transfer, `{ "amount": true, "payee": null }`, "ledger transfer true --to null --confirm"},
		{"object: compact, sorted, escaped, quoted", transfer, `{ "amount": { "b": 1, "a": "<x&y>" } }`,
			`ledger transfer '{"a":"\u003cx\u0026y\u003e","b":1}' --confirm`},
		{"array", transfer, `{ "amount": [1, "a b", {}] }`, `ledger transfer '[1,"a b",{}]' --confirm`},
		{"empty object", transfer, `{ "amount": {} }`, "ledger transfer '{}' --confirm"},
		{"quote inside JSON", transfer, `{ "amount": ["it's"] }`, `ledger transfer '["it'\''s"]' --confirm`},
		{"--confirm appended", []string{"ws", "write", "{path}"}, `{ "path": "/a" }`, "ws write /a --confirm"},
		{"--apply taken", []string{"ws", "purge", "{path}", "--apply"}, `{ "path": "/a" }`, "ws purge /a --apply"},
		{"--confirm taken mid-template", []string{"ws", "--confirm", "purge"}, "", "ws --confirm purge"},
		{"a flag like --confirm=1 is not --confirm", []string{"ws", "--confirm=1"}, "", "ws --confirm=1 --confirm"},
		{"empty template", []string{}, "", "--confirm"},
		{"literal tokens stay as written", []string{"echo", "a b", "{}", "{a{b}", "x{a}", "{a}x", "{{a}}"}, `{ "a": "v" }`,
			"echo a b {} {a{b} x{a} {a}x {{a}} --confirm"},
		{"a name with spaces", []string{"x", "{ a }"}, `{ " a ": "v" }`, "x v --confirm"},
		{"bare -- dropped", []string{"x", "--", "{a}"}, "", "x --confirm"},
		{"--flag=value dropped", []string{"x", "--to=me", "{a}"}, "", "x --confirm"},
		{"single dash kept", []string{"x", "-t", "{a}"}, "", "x -t --confirm"},
		{"only the token just before", []string{"x", "--a", "--b", "{a}"}, "", "x --a --confirm"},
		{"placeholder after a dropped placeholder", []string{"x", "--to", "{a}", "{b}"}, `{ "b": "v" }`, "x v --confirm"},
		{"flag before a present placeholder kept", []string{"x", "--to", "{a}", "{b}"}, `{ "a": "v" }`, "x --to v --confirm"},
		{"the same placeholder twice", []string{"x", "{a}", "--again", "{a}"}, `{ "a": "v" }`, "x v --again v --confirm"},
		{"first token a placeholder", []string{"{a}", "x"}, "", "x --confirm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args map[string]any
			if tt.args != "" {
				args = decode(t, tt.args).(map[string]any)
			}
			if got := renderCLI(tt.template, args); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestPreview checks the preview object of confirm_required decisions.
func TestPreview(t *testing.T) {
	e := ledgerFixture([2]string{"member.json", memberGrants}).evaluator(t)
	const who = `"principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger", "owner": "bob"`
	tests := []struct {
		name  string
		input string
		ext   Ext
		want  string
	}{
		{"no args", `{ ` + who + `, "verb_key": "transfer" }`, Ext{},
			`{ "command": "transfer", "args": {}, "cli": "ledger transfer --confirm" }`},
		{"args echoed as given", `{ ` + who + `, "verb_key": "transfer", "args": { "amount": 2.80, "memo": { "a": [1] } } }`, Ext{},
			`{ "command": "transfer", "args": { "amount": 2.80, "memo": { "a": [1] } }, "cli": "ledger transfer 2.80 --confirm" }`},
		{"no cli template", `{ ` + who + `, "verb_key": "wipe", "args": { "x": 1 } }`, Ext{},
			`{ "command": "wipe", "args": { "x": 1 } }`},
		{"--apply template", `{ ` + who + `, "verb_key": "close", "args": { "account": "a-1" } }`, Ext{},
			`{ "command": "close", "args": { "account": "a-1" }, "cli": "ledger close a-1 --apply" }`},
		{"runtime gate appends --confirm", `{ ` + who + `, "verb_key": "note", "args": { "text": "hi" } }`, Ext{Confirm: true},
			`{ "command": "note", "args": { "text": "hi" }, "cli": "ledger note hi --confirm" }`},
		{"a trigger has no cli", `{ ` + who + `, "stimulus": "payment_received" }`, Ext{Confirm: "check"},
			`{ "command": "payment_received", "args": {} }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := e.Decide(decode(t, tt.input), tt.ext)
			if d["code"] != confirmRequired {
				t.Fatalf("code = %v, want %q", d["code"], confirmRequired)
			}
			assertJSON(t, d["preview"], tt.want)
		})
	}
}

// TestNoPreviewUnlessConfirmRequired checks that only confirm_required
// carries preview and hint.
func TestNoPreviewUnlessConfirmRequired(t *testing.T) {
	e := ledgerFixture([2]string{"member.json", memberGrants}).evaluator(t)
	inputs := []string{
		`{ "principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger", "verb_key": "transfer", "owner": "bob", "confirm": true }`,
		`{ "principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger", "verb_key": "transfer", "owner": "eve" }`,
		`{ "principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger", "verb_key": "transfer", "owner": "bob" }`,
	}
	wantPreview := []bool{false, false, true}
	for i, input := range inputs {
		d := e.Decide(decode(t, input), Ext{Deny: nil})
		_, hasPreview := d["preview"]
		_, hasHint := d["hint"]
		if hasPreview != wantPreview[i] || hasHint != wantPreview[i] {
			t.Errorf("%s: preview %v, hint %v; want %v", d["code"], hasPreview, hasHint, wantPreview[i])
		}
	}
}
