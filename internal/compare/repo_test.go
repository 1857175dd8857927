package compare

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// The small repositories that the brute-force tests compare: a few packs
// of a few rows, and grants over a few ids, roles and tenants, so that
// every principal class can be enumerated.
var (
	testIDs     = []string{"a", "b"}
	testRoles   = []string{"r1", "r2", "r3"}
	testTenants = []string{"t1", "t2"}
	testLands   = []string{"personal", "brain", "local"}
)

// row is a policy row as a test writes it.
type row struct {
	Operation string
	Land      string
	Confirm   any // nil, true or "always"
}

// pack is a pack as a test writes it: its verbs and stimuli by key.
type pack struct {
	Verbs   map[string]row
	Stimuli map[string]row
}

// grant is a grant as a test writes it.
type grant struct {
	Subject      string   `json:"subject"`
	Tenant       string   `json:"tenant,omitempty"`
	PackID       string   `json:"pack_id"`
	VerbKey      string   `json:"verb_key,omitempty"`
	Stimulus     string   `json:"stimulus,omitempty"`
	Capabilities []string `json:"capabilities"`
}

// repo is one version of a policy repository.
type repo struct {
	Packs  map[string]pack
	Grants []grant
}

// files writes the repository as packs/<id>/{manifest,policy}.json and
// grants.json.
func (r repo) files() map[string]string {
	files := map[string]string{}
	for id, p := range r.Packs {
		commands := map[string]any{}
		for key := range p.Verbs {
			commands[key] = map[string]any{}
		}
		triggers := append([]string{}, slices.Sorted(maps.Keys(p.Stimuli))...)
		files["packs/"+id+"/manifest.json"] = mustJSON(map[string]any{"id": id, "commands": commands, "stimulusTriggers": triggers})
		policy := map[string]any{"surface_id": id, "version": 1, "verbs": rowsJSON(p.Verbs), "stimuli": rowsJSON(p.Stimuli)}
		files["packs/"+id+"/policy.json"] = mustJSON(policy)
	}
	files["grants.json"] = mustJSON(map[string]any{"version": 1, "grants": append([]grant{}, r.Grants...)})
	return files
}

func rowsJSON(rows map[string]row) map[string]any {
	out := map[string]any{}
	for key, r := range rows {
		entry := map[string]any{"operation": r.Operation, "privacy": map[string]any{"land": r.Land}}
		if r.Confirm != nil {
			entry["confirm"] = r.Confirm
		}
		out[key] = entry
	}
	return out
}

func mustJSON(v any) string {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		panic(err)
	}
	return string(data)
}

// model writes the repository under dir and checks it.
func (r repo) model(t testing.TB, dir string) *compile.Model {
	t.Helper()
	treetest.Write(t, dir, r.files())
	var dirs []string
	for id := range r.Packs {
		dirs = append(dirs, filepath.Join(dir, "packs", id))
	}
	slices.Sort(dirs)
	m, err := compile.Checked(dirs, []string{filepath.Join(dir, "grants.json")})
	if err != nil {
		t.Fatalf("%v\n%s", err, mustJSON(r))
	}
	return m
}

// clone copies r deeply enough for a mutation.
func (r repo) clone() repo {
	c := repo{Packs: map[string]pack{}, Grants: slices.Clone(r.Grants)}
	for id, p := range r.Packs {
		c.Packs[id] = pack{Verbs: maps.Clone(p.Verbs), Stimuli: maps.Clone(p.Stimuli)}
	}
	for i := range c.Grants {
		c.Grants[i].Capabilities = slices.Clone(c.Grants[i].Capabilities)
	}
	return c
}

// randomRow draws a row that lints clean: triggers and connect commands
// as their rules say, confirm only on writes.
func randomRow(r *rand.Rand, kind compile.Kind, key string) row {
	land := testLands[r.IntN(3)]
	if kind == compile.Stimulus {
		return row{Operation: "read", Land: land}
	}
	if key != "connect" && r.IntN(3) == 0 {
		return row{Operation: "read", Land: land}
	}
	return row{Operation: "write", Land: land, Confirm: []any{nil, nil, true, "always"}[r.IntN(4)]}
}

// randomRepo draws a repository of one or two packs and n grants.
func randomRepo(r *rand.Rand, n int) repo {
	rp := repo{Packs: map[string]pack{}}
	for i := range 1 + r.IntN(2) {
		p := pack{Verbs: map[string]row{}, Stimuli: map[string]row{}}
		for _, key := range []string{"v1", "v2", "connect"}[:1+r.IntN(3)] {
			p.Verbs[key] = randomRow(r, compile.Verb, key)
		}
		if r.IntN(2) == 0 {
			p.Stimuli["s1"] = randomRow(r, compile.Stimulus, "s1")
		}
		rp.Packs[fmt.Sprintf("p%d", i+1)] = p
	}
	for range n {
		rp.Grants = append(rp.Grants, randomGrant(r, rp))
	}
	return rp
}

// randomGrant draws a grant that lints clean against rp's packs.
func randomGrant(r *rand.Rand, rp repo) grant {
	// Default grants and roles are frequent: the default rule's corner
	// needs a default grant, a role named elsewhere and one that covers.
	subjects := []string{"default", "default", "default"}
	for _, id := range testIDs {
		subjects = append(subjects, "principal:"+id)
	}
	for _, role := range testRoles {
		subjects = append(subjects, "role:"+role, "role:"+role)
	}
	ids := slices.Sorted(maps.Keys(rp.Packs))
	id := ids[r.IntN(len(ids))]
	p := rp.Packs[id]
	g := grant{Subject: subjects[r.IntN(len(subjects))], PackID: id}
	if r.IntN(3) == 0 {
		g.Tenant = testTenants[r.IntN(len(testTenants))]
	}
	verbCaps := []string{compile.CapRead, compile.CapWrite, compile.CapConnect}
	switch k := r.IntN(5); {
	case k < 2:
		g.Capabilities = pick(r, append(verbCaps, compile.CapSense))
	case k < 4 || len(p.Stimuli) == 0:
		keys := slices.Sorted(maps.Keys(p.Verbs))
		g.VerbKey, g.Capabilities = keys[r.IntN(len(keys))], pick(r, verbCaps)
	default:
		g.Stimulus, g.Capabilities = "s1", []string{compile.CapSense}
	}
	return g
}

// pick draws a non-empty subset of caps, in their order.
func pick(r *rand.Rand, caps []string) []string {
	var out []string
	for len(out) == 0 {
		for _, c := range caps {
			if r.IntN(3) == 0 {
				out = append(out, c)
			}
		}
	}
	return out
}

// mutate returns a changed copy of rp, as a pull request changes a
// repository: grants added, removed or moved to another subject or
// tenant, rows changed, added or removed.
func mutate(r *rand.Rand, rp repo) repo {
	c := rp.clone()
	for range 1 + r.IntN(3) {
		switch r.IntN(7) {
		case 0, 1:
			c.Grants = append(c.Grants, randomGrant(r, c))
		case 2:
			if len(c.Grants) > 0 {
				c.Grants = dropOne(r, c.Grants)
			}
		case 3:
			if len(c.Grants) > 0 {
				g := &c.Grants[r.IntN(len(c.Grants))]
				fresh := randomGrant(r, c)
				g.Subject, g.Tenant = fresh.Subject, fresh.Tenant
			}
		case 4, 5:
			changeRow(r, c)
		case 6:
			dropRow(r, &c)
		}
	}
	return c
}

// dropOne returns grants without one of them.
func dropOne(r *rand.Rand, grants []grant) []grant {
	i := r.IntN(len(grants))
	return slices.Concat(grants[:i], grants[i+1:])
}

// changeRow redraws one row, or adds one.
func changeRow(r *rand.Rand, rp repo) {
	ids := slices.Sorted(maps.Keys(rp.Packs))
	p := rp.Packs[ids[r.IntN(len(ids))]]
	if r.IntN(4) == 0 {
		key := []string{"v1", "v2", "connect"}[r.IntN(3)]
		p.Verbs[key] = randomRow(r, compile.Verb, key)
		return
	}
	keys := slices.Sorted(maps.Keys(p.Verbs))
	key := keys[r.IntN(len(keys))]
	p.Verbs[key] = randomRow(r, compile.Verb, key)
}

// dropRow removes a command (and the grants that name it), keeping one
// command in each pack.
func dropRow(r *rand.Rand, rp *repo) {
	ids := slices.Sorted(maps.Keys(rp.Packs))
	id := ids[r.IntN(len(ids))]
	p := rp.Packs[id]
	if len(p.Verbs) < 2 {
		return
	}
	keys := slices.Sorted(maps.Keys(p.Verbs))
	key := keys[r.IntN(len(keys))]
	delete(p.Verbs, key)
	rp.Grants = slices.DeleteFunc(rp.Grants, func(g grant) bool { return g.PackID == id && g.VerbKey == key })
}

func (g grant) String() string {
	return strings.TrimSpace(mustJSON(g))
}

// denseRepo draws a repository of one pack of two commands and n grants
// to its roles and to default: the default rule's corners (a principal
// named by one role's grant elsewhere loses the default grants another
// role's would not give) come often in it.
func denseRepo(r *rand.Rand, n int) repo {
	rp := repo{Packs: map[string]pack{"p1": {
		Verbs:   map[string]row{"v1": randomRow(r, compile.Verb, "v1"), "v2": randomRow(r, compile.Verb, "v2")},
		Stimuli: map[string]row{},
	}}}
	for range n {
		rp.Grants = append(rp.Grants, denseGrant(r))
	}
	return rp
}

func denseGrant(r *rand.Rand) grant {
	subjects := []string{"default", "role:r1", "role:r2", "role:r3"}
	g := grant{Subject: subjects[r.IntN(len(subjects))], PackID: "p1", Capabilities: pick(r, []string{compile.CapRead, compile.CapWrite})}
	if r.IntN(2) == 0 {
		g.VerbKey = []string{"v1", "v2"}[r.IntN(2)]
	}
	if r.IntN(5) == 0 {
		g.Tenant = "t1"
	}
	return g
}

// mutateDense adds, drops or moves one or two grants of rp.
func mutateDense(r *rand.Rand, rp repo) repo {
	c := rp.clone()
	for range 1 + r.IntN(2) {
		switch k := r.IntN(3); {
		case k == 0 || len(c.Grants) == 0:
			c.Grants = append(c.Grants, denseGrant(r))
		case k == 1:
			c.Grants = dropOne(r, c.Grants)
		default:
			g := &c.Grants[r.IntN(len(c.Grants))]
			fresh := denseGrant(r)
			g.Subject, g.Tenant = fresh.Subject, fresh.Tenant
		}
	}
	return c
}
