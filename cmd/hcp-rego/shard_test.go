package main

import (
	"strings"
	"testing"
)

// TestShardQuotesTenants: a tenant id with a line break, an escape or a
// workflow command is written quoted after its shard, so that no line of
// shard's output is started or broken by a tenant id.
func TestShardQuotesTenants(t *testing.T) {
	o := runInProcess(t, 0, "shard", "--shards", "4", "a\n::error::x", "b\x1b[2J", "plain")
	if o.code != exitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")
	want := []string{`"a\n::error::x"`, `"b\x1b[2J"`, "plain"}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), o.stdout)
	}
	for i, line := range lines {
		k, tenant, ok := strings.Cut(line, " ")
		if !ok || len(k) != 1 || k < "0" || k > "3" || tenant != want[i] {
			t.Errorf("line %d %q: want a shard below 4, a space and %s", i+1, line, want[i])
		}
	}
}
