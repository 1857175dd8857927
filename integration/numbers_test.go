package integration

import (
	"fmt"
	"strings"
	"testing"
)

// longNumberCall is a gated call whose amount is written as given, with
// four allow rules that limit it.
func longNumberCall(amount string) string {
	return fmt.Sprintf(`{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice",
		"args": {"amount": %s, "payee": "x"}, "access": {"allow": [
			{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "x"}, "limits": {"amount": {"max": 5}}},
			{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "x"}, "limits": {"amount": {"max": "12.5"}}},
			{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "x"}, "limits": {"amount": {"min": 1e3}}},
			{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "x"}, "limits": {"amount": {"min": "-3", "max": 1e400}}}]}}`, amount)
}

// TestSidecarLongNumbers sends a sidecar numbers and numeric strings of 65
// characters, 1 KB and 1 MB in a limited argument. docs/decisions.md
// (item 8) bounds a number at 64 characters, so each is confirm_required,
// and OPA answers 200, where its number comparison once panicked on a
// megabyte. That the allow rules never parse the long value, which also
// took the sidecar seconds, is TestLongNumbersMeetOnlyTheLengthCheck's
// (package rego, the same OPA).
func TestSidecarLongNumbers(t *testing.T) {
	t.Parallel()
	s := startOPA(t, "--bundle", buildFile(t, exampleModel(t, acme), "", nil))
	s.waitHealthy(t)
	for _, size := range []int{65, 1 << 10, 1 << 20} {
		digits := "1" + strings.Repeat("0", size-1)
		for kind, amount := range map[string]string{"number": digits, "numeric string": `"` + digits + `"`} {
			t.Run(fmt.Sprintf("%s of %d characters", kind, size), func(t *testing.T) {
				doc, _ := s.query(t, "hcp/authz/decision", decode(t, longNumberCall(amount))).(map[string]any)
				if doc["code"] != "confirm_required" {
					t.Errorf("decision %v, want confirm_required", doc["code"])
				}
			})
		}
	}
}
