package reference

import (
	"fmt"
	"strings"
	"testing"
)

// manyGrants is a grant file of n grants, the member's last: the one the
// benchmarked calls need sits at the far end.
func manyGrants(n int) string {
	var b strings.Builder
	b.WriteString("{\n  \"grants\": [\n")
	for i := range n - 1 {
		fmt.Fprintf(&b, "    { \"subject\": \"role:r%d\", \"tenant\": \"t%d\", \"pack_id\": \"ledger\", \"verb_key\": \"transfer\", \"capabilities\": [\"verb.exec.write\"] },\n", i, i%7)
	}
	b.WriteString("    { \"subject\": \"role:member\", \"pack_id\": \"ledger\", \"capabilities\": [\"verb.exec.read\", \"verb.exec.write\"] }\n  ]\n}\n")
	return b.String()
}

// BenchmarkDecide is the performance floor for a decision: an allowed call
// and a confirm_required one (with its preview), against 1 grant and
// against 100,000. The two sizes should cost the same.
func BenchmarkDecide(b *testing.B) {
	inputs := []struct{ code, text string }{
		{allowed, `{ "principal": { "id": "bob", "tenant": "t3", "roles": ["member", "guest"] }, "pack_id": "ledger",
			"verb_key": "transfer", "owner": "bob", "args": { "amount": "2.80", "payee": "demo-transit" },
			"access": { "mode": "ask", "allow": [{ "pack_id": "ledger", "verb_key": "transfer",
				"args": { "payee": "demo-transit" }, "limits": { "amount": { "max": 5 } } }] } }`},
		{confirmRequired, `{ "principal": { "id": "bob", "tenant": "t3", "roles": ["member", "guest"] }, "pack_id": "ledger",
			"verb_key": "transfer", "owner": "bob", "args": { "amount": "12.80", "payee": "demo transit" },
			"access": { "mode": "ask", "allow": [{ "pack_id": "ledger", "verb_key": "transfer",
				"args": { "payee": "demo-transit" }, "limits": { "amount": { "max": 5 } } }] } }`},
	}
	for _, n := range []int{1, 100_000} {
		e := ledgerFixture([2]string{"many.json", manyGrants(n)}).evaluator(b)
		for _, in := range inputs {
			input := decode(b, in.text)
			if got := e.Decide(input, Ext{}); got["code"] != in.code {
				b.Fatalf("grants=%d: code %v, want %s", n, got["code"], in.code)
			}
			b.Run(fmt.Sprintf("grants=%d/%s", n, in.code), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					e.Decide(input, Ext{})
				}
			})
		}
	}
}
