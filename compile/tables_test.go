package compile

import (
	"encoding/json"
	"testing"
)

// FuzzHolderKey holds holderKey, which writes the JSON of [subject,
// tenant] itself when it can, to json.Marshal's text, which OPA's
// json.marshal writes alike.
func FuzzHolderKey(f *testing.F) {
	for _, s := range [][2]string{
		{"principal:alice", "acme"}, {"role:a<b", "t"}, {"role:a", `q"uote`}, {"role:é", "t"}, {"role:\x7f", "t"},
		{"role:a\\b", "t"}, {"role:a&b", "t>"}, {"role:\u2028", "t"}, {"role:\xff", "t"}, {"principal:u0001234", "t00001"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, subject, tenant string) {
		if tenant == "" {
			return
		}
		want, _ := json.Marshal([]string{subject, tenant})
		if got := holderKey(subject, tenant); got != string(want) {
			t.Fatalf("holderKey(%q, %q) = %s, want %s", subject, tenant, got, want)
		}
	})
}
