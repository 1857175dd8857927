package testrun

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/discover"
	"github.com/hcp-rego/hcp-rego/internal/printable"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// Outcomes are the codes a decision on a row can end with, in the order
// of the chain (docs/decisions.md#the-chain).
var Outcomes = []string{"pack_unavailable", "tenant_unavailable", "capability_required", "land_denied", "runtime_denied", "confirm_required", "allowed"}

// Coverage is how much of the model the decision cases exercised.
//
// Its units are every policy row and every confirm gate (a row whose
// confirm is true or "always"). A row is reached when some case's decision
// judged it (any code from pack_unavailable on: the decision names the row
// in source.row). A gate is reached when some case on its row ended
// confirm_required, that is, a case saw the gate hold. The percentage is
// 100 × reached units / all units. Grants are listed, not counted: a grant
// is used when some decision names it in source.grant, a file:line, which
// names every grant written on that line.
type Coverage struct {
	Rows   []*RowCoverage
	Grants []*GrantCoverage
}

// RowCoverage is what the cases did with one row.
type RowCoverage struct {
	Row      *compile.Row
	Outcomes []string // the codes decisions on the row ended with, in chain order
}

// Reached reports whether some case's decision judged the row.
func (rc *RowCoverage) Reached() bool { return len(rc.Outcomes) > 0 }

// Gated reports whether the row has a confirm gate.
func (rc *RowCoverage) Gated() bool { return rc.Row.Gate != compile.NoGate }

// GateReached reports whether some case saw the row's gate hold.
func (rc *RowCoverage) GateReached() bool {
	return rc.Gated() && slices.Contains(rc.Outcomes, "confirm_required")
}

// GrantCoverage is whether some case's capability came from one grant.
type GrantCoverage struct {
	Grant *compile.Grant
	Used  bool
}

// measure computes coverage over every row and grant of m from the
// decisions the cases got.
func measure(m *compile.Model, results []*Result) *Coverage {
	rows := map[string]*RowCoverage{}
	c := &Coverage{}
	for _, p := range m.Packs() {
		for _, k := range []compile.Kind{compile.Verb, compile.Stimulus} {
			for _, r := range p.Rows(k) {
				rc := &RowCoverage{Row: r}
				rows[rowKey(r.Pack, r.Kind.Field(), r.Key)] = rc
				c.Rows = append(c.Rows, rc)
			}
		}
	}
	slices.SortFunc(c.Rows, func(a, b *RowCoverage) int {
		return cmp.Or(cmp.Compare(a.Row.Pack, b.Row.Pack), cmp.Compare(a.Row.Line, b.Row.Line), cmp.Compare(a.Row.Key, b.Row.Key))
	})
	grants := map[string][]*GrantCoverage{}
	key := grantKeys()
	for _, g := range m.Grants() {
		gc := &GrantCoverage{Grant: g}
		grants[key(g.Source())] = append(grants[key(g.Source())], gc)
		c.Grants = append(c.Grants, gc)
	}
	for _, res := range results {
		if res.asBuilt {
			continue
		}
		row, grant, code := provenance(res.Decision)
		if rc := rows[row]; rc != nil && !slices.Contains(rc.Outcomes, code) {
			rc.Outcomes = append(rc.Outcomes, code)
		}
		for _, gc := range grants[key(grant)] {
			gc.Used = true
		}
	}
	for _, rc := range c.Rows {
		slices.SortFunc(rc.Outcomes, func(a, b string) int {
			return cmp.Compare(slices.Index(Outcomes, a), slices.Index(Outcomes, b))
		})
	}
	return c
}

// grantKeys returns a function that keys a grant's "file:line" by its
// file's identity (discover.SamePath) and line: a case file may name a grant
// file by another spelling than the model's (an absolute path, a link),
// and its decisions name the grant in that spelling.
func grantKeys() func(source string) string {
	files := map[string]string{}
	return func(source string) string {
		i := strings.LastIndexByte(source, ':')
		if i < 0 {
			return source
		}
		file, ok := files[source[:i]]
		if !ok {
			file = discover.SamePath(source[:i])
			files[source[:i]] = file
		}
		return file + source[i:]
	}
}

// provenance reads which row a decision judged (its pack and key, when it
// names a row in source.row), which grant it names in source.grant, and
// its code. Rows are told apart by key, not by source.row, whose file:line
// is the same for rows written on one line.
func provenance(d *hcprego.Decision) (row, grant, code string) {
	if d == nil { // a Rego test
		return "", "", ""
	}
	if d.SourceRow != "" && d.Key != "" {
		row = rowKey(d.PackID, d.Field, d.Key)
	}
	return row, d.SourceGrant, d.Code
}

func rowKey(pack, field, key string) string { return pack + "\x00" + field + "\x00" + key }

// Units returns how many units the cases reached and how many there are.
func (c *Coverage) Units() (reached, total int) {
	for _, rc := range c.Rows {
		total++
		if rc.Reached() {
			reached++
		}
		if rc.Gated() {
			total++
			if rc.GateReached() {
				reached++
			}
		}
	}
	return reached, total
}

// Ratio is reached units / all units, exactly; 0 when the model has no
// rows, so that a threshold never passes on nothing.
func (c *Coverage) Ratio() *big.Rat {
	reached, total := c.Units()
	if total == 0 {
		return new(big.Rat)
	}
	return big.NewRat(int64(reached), int64(total))
}

// Percent renders the percentage with one decimal, rounded down, so that
// it never shows more than was reached ("99.9%", never "100.0%" short of
// all).
func (c *Coverage) Percent() string {
	tenths := new(big.Rat).Mul(c.Ratio(), big.NewRat(1000, 1))
	n := new(big.Int).Quo(tenths.Num(), tenths.Denom()).Int64()
	return fmt.Sprintf("%d.%d%%", n/10, n%10)
}

// Below reports whether the percentage is under threshold, a percentage
// from 0 to 100, compared exactly.
func (c *Coverage) Below(threshold *big.Rat) bool {
	pct := new(big.Rat).Mul(c.Ratio(), big.NewRat(100, 1))
	return pct.Cmp(threshold) < 0
}

// Summary is the coverage line: "coverage 75.0% (15 of 20): 14 of 16
// rows reached, 1 of 4 gates reached".
func (c *Coverage) Summary() string {
	reached, total := c.Units()
	rows, rowsReached, gates, gatesReached := 0, 0, 0, 0
	for _, rc := range c.Rows {
		rows++
		if rc.Reached() {
			rowsReached++
		}
		if rc.Gated() {
			gates++
			if rc.GateReached() {
				gatesReached++
			}
		}
	}
	return fmt.Sprintf("coverage %s (%d of %d): %d of %d rows reached, %d of %d gates reached",
		c.Percent(), reached, total, rowsReached, rows, gatesReached, gates)
}

// describeRow names a row for a reader: "ledger verb transfer". A key is
// any string a policy.json gives, so it is made printable: a line break
// in it would start a line of the report's own (a GitHub workflow
// command, or a fake result), an escape would drive the terminal.
func describeRow(r *compile.Row) string {
	return printable.Quote(fmt.Sprintf("%s %s %s", r.Pack, r.Kind, r.Key))
}

// describeGate names a row's gate: `confirm: true` or `confirm: "always"`.
func describeGate(r *compile.Row) string {
	return "confirm: " + compact(r.Gate.JSON())
}

// describeGrant names a grant: `grant 3 (role:admin on mail)`.
func describeGrant(g *compile.Grant) string {
	scope := g.PackID
	switch {
	case g.VerbKey != "":
		scope += " verb " + g.VerbKey
	case g.Stimulus != "":
		scope += " stimulus " + g.Stimulus
	}
	return printable.Quote(fmt.Sprintf("grant %d (%s on %s)", g.N, g.Subject, scope))
}
