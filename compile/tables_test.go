package compile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
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

// TestShardOfTable holds the policy bundle's table of shards, which the
// library looks up, to Shard, which a router computes: for every value of
// a sha256's first two bytes, at several numbers of shards.
func TestShardOfTable(t *testing.T) {
	for _, n := range []int{2, 3, 7, 256, 1000, 4096} {
		table := shardOfTable(n)
		if len(table) != 1<<16 {
			t.Fatalf("%d shards: %d entries, want 65,536", n, len(table))
		}
		for i := range 3000 {
			tenant := fmt.Sprintf("tenant-%d", i)
			sum := sha256.Sum256([]byte(tenant))
			if got, want := table[hex.EncodeToString(sum[:2])], strconv.Itoa(Shard(tenant, n)); got != want {
				t.Fatalf("%d shards: the table gives %q %v, Shard %s", n, tenant, got, want)
			}
		}
	}
}
