package compare

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// exactCounts is the profile of tenant t for the key scanned, counted
// subject by subject: every subject either version names, at its type
// for a principal of t.
func exactCounts(s *keyScan, t int32) counts {
	var c counts
	for subj := range s.u.names.subjectsOf {
		if typ := s.typeUnder(int32(subj), t); typ != 0 {
			c[s.u.kindOf(int32(subj))][typ]++
		}
	}
	return c
}

// TestProfilesCountTypes holds the profiles that compare computes from
// counts and corrections (a group's, a relevant tenant's) to the types
// counted subject by subject, on every key of generated pairs: a
// relevant tenant's counts exactly, a group's presence of each type.
func TestProfilesCountTypes(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 50
	}
	checked := 0
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 47))
		var b, a repo
		if seed%2 == 0 {
			b = denseRepo(r, 2+r.IntN(6))
			a = mutateDense(r, b)
		} else {
			b = randomRepo(r, 3+r.IntN(8))
			a = mutate(r, b)
		}
		dir := t.TempDir()
		before, after := b.model(t, filepath.Join(dir, "old")), a.model(t, filepath.Join(dir, "new"))
		u := newUniverse(before.Grants(), after.Grants())
		scan := newKeyScan(u)
		for _, k := range keysOf(before, after) {
			scan.scan(k, capabilityOf(rowOf(before, k)), capabilityOf(rowOf(after, k)))
			where := fmt.Sprintf("seed %d, %s %s", seed, k.Pack, k.Key)
			if got, want := scan.none, exactCounts(scan, noTenant); got != want {
				t.Errorf("%s, no tenant: counts %v, want %v", where, got, want)
			}
			for _, tenant := range scan.relevant {
				if got, want := scan.tenantCounts(tenant), exactCounts(scan, tenant); got != want {
					t.Errorf("%s, tenant %s: counts %v, want %v", where, u.names.tenantsOf[tenant], got, want)
				}
				checked++
			}
			for _, g := range u.groups {
				member, ok := scan.bystander(g)
				if !ok {
					continue
				}
				got := scan.groupCounts(g)
				want := exactCounts(scan, member)
				if profileKey(&got, 0) != profileKey(&want, 0) {
					t.Errorf("%s, group of %s: counts %v, want the types of %v", where, u.names.tenantsOf[member], got, want)
				}
				if key, want := scan.groupKey(g), profileKey(&want, scan.defaultBits(noTenant)); key != want {
					t.Errorf("%s, group of %s: key %x, want %x", where, u.names.tenantsOf[member], key, want)
				}
				checked++
			}
		}
	}
	t.Logf("%d profiles checked", checked)
}
