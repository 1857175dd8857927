package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// longNumberCall is a gated call whose amount is written as given, with
// four allow rules that limit it, or with none for a baseline that sends
// and decides as much input.
func longNumberCall(amount string, rules bool) string {
	allow := "[]"
	if rules {
		allow = `[{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "x"}, "limits": {"amount": {"max": 5}}},
			{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "x"}, "limits": {"amount": {"max": "12.5"}}},
			{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "x"}, "limits": {"amount": {"min": 1e3}}},
			{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "x"}, "limits": {"amount": {"min": "-3", "max": 1e400}}}]`
	}
	return fmt.Sprintf(`{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice",
		"args": {"amount": %s, "payee": "x"}, "access": {"allow": %s}}`, amount, allow)
}

// TestSidecarLongNumbers sends a sidecar numbers and numeric strings of 65
// characters, 1 KB and 1 MB in a limited argument. SPEC §3.4 bounds a
// number at 64 characters, so each is confirm_required; OPA answers 200
// (no panic), and the four allow rules cost little beside sending and
// reading the input: at most a few times the same call without them,
// where OPA's number comparison once took the sidecar seconds.
func TestSidecarLongNumbers(t *testing.T) {
	t.Parallel()
	s := startOPA(t, "--bundle", buildFile(t, exampleModel(t, acme), "", nil))
	s.waitHealthy(t)
	for _, size := range []int{65, 1 << 10, 1 << 20} {
		digits := "1" + strings.Repeat("0", size-1)
		for kind, amount := range map[string]string{"number": digits, "numeric string": `"` + digits + `"`} {
			t.Run(fmt.Sprintf("%s of %d characters", kind, size), func(t *testing.T) {
				with, without := decode(t, longNumberCall(amount, true)), decode(t, longNumberCall(amount, false))
				s.query(t, "hcp/authz/decision", without) // warm up
				start := time.Now()
				doc, _ := s.query(t, "hcp/authz/decision", with).(map[string]any)
				elapsed := time.Since(start)
				start = time.Now()
				s.query(t, "hcp/authz/decision", without)
				base := time.Since(start)
				if doc["code"] != "confirm_required" {
					t.Errorf("decision %v, want confirm_required", doc["code"])
				}
				if limit := 5*base + 100*time.Millisecond; elapsed > limit {
					t.Errorf("with the allow rules OPA took %v, without %v: more than %v", elapsed, base, limit)
				}
			})
		}
	}
}
