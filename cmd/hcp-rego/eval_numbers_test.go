package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// longNumberCall is a gated call whose amount is written as given, checked
// against four allow rules that limit it (docs/decisions.md item 8).
func longNumberCall(amount string) string {
	return fmt.Sprintf(`{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "ledger", "verb_key": "transfer", "owner": "bob",
		"args": {"amount": %s}, "access": {"allow": [
			{"pack_id": "ledger", "verb_key": "transfer", "limits": {"amount": {"max": 5}}},
			{"pack_id": "ledger", "verb_key": "transfer", "limits": {"amount": {"max": "12.5"}}},
			{"pack_id": "ledger", "verb_key": "transfer", "limits": {"amount": {"min": 1e3}}},
			{"pack_id": "ledger", "verb_key": "transfer", "limits": {"amount": {"min": "-3", "max": 1e400}}}]}}`, amount)
}

// TestEvalLongNumbers decides numbers and numeric strings of 65
// characters, 1 KB and 1 MB in a limited argument: no limit accepts one
// (docs/decisions.md item 8: at most 64 characters), so each is
// confirm_required, with no panic, within the allocation bound of one
// reading of the input. That the allow rules never parse the long value
// (OPA's number comparison once took seconds, and panicked, on a megabyte)
// is TestLongNumbersMeetOnlyTheLengthCheck's, in package rego.
func TestEvalLongNumbers(t *testing.T) {
	dir, _ := fixture(t, nil)
	input := filepath.Join(dir, "call.json")
	for _, size := range []int{65, 1 << 10, 1 << 20} {
		digits := "1" + strings.Repeat("0", size-1)
		for kind, amount := range map[string]string{"number": digits, "numeric string": `"` + digits + `"`} {
			t.Run(fmt.Sprintf("%s of %d characters", kind, size), func(t *testing.T) {
				text := longNumberCall(amount)
				if err := os.WriteFile(input, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				o := runInProcess(t, len(text), "eval", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"), "--input", input)
				var d map[string]any
				dec := json.NewDecoder(strings.NewReader(o.stdout))
				dec.UseNumber()
				if err := dec.Decode(&d); err != nil || o.code != exitOK {
					t.Fatalf("eval: exit %d, %v\n%s", o.code, err, o.stderr)
				}
				if d["code"] != "confirm_required" {
					t.Errorf("decision %v, want confirm_required", d["code"])
				}
			})
		}
	}
}

// TestEvalManyRulesOneLongArgument pins a half-megabyte argument in each of 300
// allow rules to a value it does not have: the argument is written and
// split once a decision, not once a rule, so the run allocates what one
// reading of the input costs (the bound runInProcess holds it to) where it
// once allocated the megabyte again for every rule.
func TestEvalManyRulesOneLongArgument(t *testing.T) {
	dir, _ := fixture(t, nil)
	input := filepath.Join(dir, "call.json")
	for _, c := range pinCases {
		t.Run(c.name, func(t *testing.T) {
			text := pinnedCall(t, input, c.pin, c.arg, 300)
			o := runInProcess(t, len(text), "eval", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"), "--input", input)
			if o.code != exitOK || !strings.Contains(o.stdout, `"code": "confirm_required"`) {
				t.Errorf("eval: exit %d, %.300s\n%s", o.code, o.stdout, o.stderr)
			}
		})
	}
}

// pinCases pin a long argument in each allow rule to a value it does not
// have, one token against one.
var pinCases = []struct{ name, pin, arg string }{
	// Each rule's one token a string, the call's a long one.
	{"string pins", `["%d"]`, fmt.Sprintf(`["%s"]`, strings.Repeat("7", 1<<19))},
	// Each rule's one token a number, which the call's long string
	// token is read as, once a decision, not once a rule.
	{"number pins", `%d`, fmt.Sprintf(`"%s"`, strings.Repeat("7", 1<<19))},
}

// pinnedCall writes to file a gated call whose argument amount is arg,
// with n allow rules that pin it as pin (a format of the rule's index)
// says, and returns its text.
func pinnedCall(t *testing.T, file, pin, arg string, n int) string {
	t.Helper()
	rules := make([]string, n)
	for i := range rules {
		rules[i] = fmt.Sprintf(`{"pack_id": "ledger", "verb_key": "transfer", "args": {"amount": `+pin+`}}`, i)
	}
	text := fmt.Sprintf(`{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "ledger", "verb_key": "transfer", "owner": "bob",
		"args": {"amount": %s}, "access": {"allow": [%s]}}`, arg, strings.Join(rules, ", "))
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return text
}
