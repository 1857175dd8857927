package compile_test

import (
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
)

// TestPreviewText holds the precomputed preview of a gated row to SPEC
// §3.4: placeholders become %s in order, a literal % is escaped for
// sprintf, --confirm is appended unless --confirm or --apply is a token,
// and rows without a gate or a string template have none.
func TestPreviewText(t *testing.T) {
	cases := []struct {
		name string
		gate compile.Gate
		cli  []string
		want string
		ok   bool
	}{
		{"placeholders in order", compile.GateTrue, []string{"ledger", "transfer", "{amount}", "--to", "{payee}"}, "ledger transfer %s --to %s --confirm\namount\npayee", true},
		{"confirm present", compile.GateAlways, []string{"mail", "send", "{to}", "--confirm"}, "mail send %s --confirm\nto", true},
		{"apply present", compile.GateTrue, []string{"deploy", "--apply", "{env}"}, "deploy --apply %s\nenv", true},
		{"confirm inside a token is not the flag", compile.GateTrue, []string{"x", "--confirmed"}, "x --confirmed --confirm", true},
		{"literal percent", compile.GateTrue, []string{"fmt", "100%", "{n}"}, "fmt 100%% %s --confirm\nn", true},
		{"no placeholders", compile.GateTrue, []string{"purge"}, "purge --confirm", true},
		{"no gate", compile.NoGate, []string{"ledger", "{amount}"}, "", false},
		{"no template", compile.GateTrue, nil, "", false},
		{"token with a space goes to the cli array", compile.GateTrue, []string{"a b", "{x}"}, "", false},
		{"token with a line break goes to the cli array", compile.GateTrue, []string{"a\nb"}, "", false},
		{"brace inside a token goes to the cli array", compile.GateTrue, []string{"--to={to}"}, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := compile.PreviewText(&compile.Row{Gate: c.gate, CLI: c.cli})
			if got != c.want || ok != c.ok {
				t.Errorf("PreviewText(%q) = %q, %v; want %q, %v", c.cli, got, ok, c.want, c.ok)
			}
		})
	}
}
