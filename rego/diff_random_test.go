package rego_test

import (
	"encoding/json"
	"math/rand/v2"

	"github.com/hcp-rego/hcp-rego/compile"
)

// randomInputs generates inputs for the differential tests: mostly
// well-formed calls from the grid's dimensions, many of them then broken in
// one or more ways (a field removed, or given a value of another type, an
// unknown mode, both keys, empty strings, garbage in arrays), and some
// inputs that are not objects at all.
type randomInputs struct {
	r     *rand.Rand
	calls []call
}

func newRandomInputs(m *compile.Model, seed uint64) *randomInputs {
	return &randomInputs{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), calls: calls(m)}
}

func (g *randomInputs) pick(n int) int { return g.r.IntN(n) }

// next returns one input, as a JSON decoder with UseNumber would.
func (g *randomInputs) next() any {
	if g.pick(50) == 0 {
		return reparse(g.garbage(2))
	}
	c := g.calls[g.pick(len(g.calls))]
	p := principals[g.pick(len(principals))]
	shapes := allowShapes(c.pack, c.key)
	facts := landFacts(p)
	in := gridInput(c, p, modes[g.pick(len(modes))], approvals[g.pick(len(approvals))], shapes[g.pick(len(shapes))], facts[g.pick(len(facts))])
	if g.pick(8) == 0 {
		in["pack_reachable"] = g.pick(2) == 0
	}
	if g.pick(8) == 0 {
		in["dry_run"] = true
	}
	if g.pick(6) == 0 {
		in["args"] = g.args()
	}
	for n := g.pick(4) - 1; n > 0; n-- {
		g.breakOne(in)
	}
	return reparse(in)
}

// args returns random call arguments of every JSON type.
func (g *randomInputs) args() map[string]any {
	out := map[string]any{}
	names := []string{"amount", "payee", "note", "path", "what", "weird name"}
	for _, n := range names {
		if g.pick(2) == 0 {
			out[n] = g.scalar()
		}
	}
	return out
}

// scalar returns a value that exercises rendering and number rules.
func (g *randomInputs) scalar() any {
	values := []any{
		"demo", "", "it's", "a b", "x;rm -rf", "日本", "2.80", "-3", "007", "1e3", "5",
		json.Number("2.80"), json.Number("-1"), json.Number("1e2"), json.Number("0.5"), json.Number("12345678901234567890"),
		true, false, nil, []any{"a", json.Number("1")}, map[string]any{"b": "<&>", "a": json.Number("2")},
	}
	return values[g.pick(len(values))]
}

// garbage returns any JSON value, nested up to depth.
func (g *randomInputs) garbage(depth int) any {
	switch k := g.pick(7); {
	case k < 5 || depth == 0:
		return g.scalar()
	case k == 5:
		return []any{g.garbage(depth - 1), g.garbage(depth - 1)}
	default:
		return map[string]any{"principal": g.garbage(depth - 1), "pack_id": g.garbage(depth - 1)}
	}
}

// breakOne damages one part of a well-formed input.
func (g *randomInputs) breakOne(in map[string]any) {
	p, _ := in["principal"].(map[string]any)
	access, _ := in["access"].(map[string]any)
	workspace, _ := in["workspace"].(map[string]any)
	fields := []string{"principal", "pack_id", "verb_key", "stimulus", "args", "confirm", "apply", "dry_run", "pack_reachable", "access", "project_id", "owner", "workspace", "extra"}
	switch g.pick(12) {
	case 0:
		delete(in, fields[g.pick(len(fields))])
	case 1, 2:
		in[fields[g.pick(len(fields))]] = g.garbage(1)
	case 3:
		if p != nil {
			pf := []string{"id", "tenant", "roles", "projects"}
			p[pf[g.pick(len(pf))]] = g.garbage(1)
		}
	case 4:
		if p != nil {
			p["roles"] = []any{"member", g.scalar()}
		}
	case 5:
		in["verb_key"], in["stimulus"] = "read.personal.open", "seen.personal"
	case 6:
		in[[]string{"pack_id", "verb_key", "stimulus"}[g.pick(3)]] = ""
	case 7:
		in["access"] = map[string]any{"mode": []any{"ask", "run", "yolo", "", "RUN", nil}[g.pick(6)]}
	case 8:
		if access != nil {
			access["allow"] = []any{g.garbage(1)}
		}
	case 9:
		if workspace != nil {
			workspace[[]string{"root", "paths"}[g.pick(2)]] = g.garbage(1)
		}
	case 10:
		in["confirm"] = "true"
	default:
		if p != nil {
			delete(p, "id")
		}
	}
}
