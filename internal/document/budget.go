package document

import (
	"sync"
	"sync/atomic"
)

// What the input files of one run may hold in all (SPEC §5). A file's
// bytes are bounded by MaxFileBytes, but a parser holds values, some
// hundred bytes each however short their text, and a run reads many files:
// 60 MB of "[0,0,...]" made a 5 GB tree, and four such policy files 15 GB.
const (
	// MaxJSONValues bounds the values of the JSON files of one run: 2.3
	// times the 3,610,985 of the largest set measured (3,000 packs and
	// 300,000 grants): some 145 bytes a value, 1.2 GB of parsed trees at
	// most.
	MaxJSONValues = 1 << 23
	// MaxFileValues bounds the values of one JSON file: schema
	// validation holds some 800 bytes for each value it refuses, every one
	// of a file's before it returns (a file of 1,048,570 bad grants costs
	// lint 2.6 s and 820 MB). It is 1.7 times the 601,958 values of
	// a grant file of 100,000 grants; a larger grant set is split over
	// several files.
	MaxFileValues = 1 << 20
	// MaxYAMLValues bounds the values that the YAML files of one run can
	// make, counted from their text before the YAML library parses them
	// (yamlBound), a count never lower than what it builds. Parsing holds
	// some 600 bytes a value (the library's nodes and ours), and 8 MB of
	// "[0,0,...]" took 6.4 GB and 49 s through hcp-rego test.
	MaxYAMLValues = 1 << 20
	// MaxAliasValues bounds how many values alias expansion may add to
	// the YAML files of one run, so that a few nested anchors ("billion
	// laughs") cannot make a small file cost unbounded memory, nor many
	// files each under the bound.
	MaxAliasValues = 1 << 20
	// valueChunk is how many values a JSON parse takes from the run's
	// count at a time (see tally).
	valueChunk = 1024
)

// Budget is what the input files of one run may still hold, all
// together: the values of its JSON files, the values its YAML files can
// make, and the values alias expansion adds to them (MaxAliasValues). A
// command makes one and reads each file with it. What a file takes stays
// taken, whether the file is kept or refused: a run reads so many values
// in all. It is safe for concurrent use.
type Budget struct {
	json, yaml, aliases count
	fileValues          int64 // the values of one JSON file
}

// RefusedJSON reports whether a JSON parse with the budget was refused
// for want of values: its files hold more than its limit. Which parse
// that was, when parses run in parallel, depends on the order they ran
// in: a caller that must refuse the same input alike reads again in
// order.
func (b *Budget) RefusedJSON() bool {
	b.json.mu.Lock()
	defer b.json.mu.Unlock()
	return b.json.refused
}

// Limits are a budget's limits.
type Limits struct {
	JSON, File, YAML, Aliases int64
}

// NewBudget returns the budget of one run.
func NewBudget() *Budget {
	return NewBudgetOf(Limits{JSON: MaxJSONValues, File: MaxFileValues, YAML: MaxYAMLValues, Aliases: MaxAliasValues})
}

// NewBudgetOf returns a budget of the given limits (for tests).
func NewBudgetOf(l Limits) *Budget {
	b := &Budget{fileValues: l.File}
	b.json.set(l.JSON)
	b.yaml.set(l.YAML)
	b.aliases.set(l.Aliases)
	return b
}

// count is one limit of a budget and what is left of it.
type count struct {
	limit int64
	// left changes under mu only; it may be read at any time.
	left atomic.Int64
	mu   sync.Mutex
	// back is signalled when values come back, or a parse stops holding
	// values it took and has not used (tally): a parse that waits for
	// values then has them, or knows that none will come.
	back    *sync.Cond
	holders int  // the parses holding values they have not used
	refused bool // a parse was refused for want of values
}

func (c *count) set(limit int64) {
	c.limit = limit
	c.left.Store(limit)
	c.back = sync.NewCond(&c.mu)
}

// take takes n, or nothing when fewer than n are left.
func (c *count) take(n int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left.Load() < n {
		return false
	}
	c.left.Add(-n)
	return true
}

// tally counts the values of one JSON parse against the run's count. It
// takes them valueChunk at a time, so that files parsed in parallel do
// not contend for every value, and one at a time once a chunk no longer
// fits. A parse is refused only when every value of the run's limit is
// used: one that finds none left while other parses hold values they
// took and have not used waits for them to use or return them. So a run
// is refused exactly when its files hold more values than its limit,
// alone or in parallel; which parse is refused then depends on the order
// they ran in (see Budget.RefusedJSON).
type tally struct {
	c          *count
	file       int64 // the most values of one file
	used, held int64
	holding    bool // counted in c.holders
}

// newTally returns the tally of one parse with budget b.
func newTally(b *Budget) *tally { return &tally{c: &b.json, file: b.fileValues} }

// one counts one value, and reports whether the run had room for it.
// The file's own limit is checked by the parser, before it (full).
func (t *tally) one() bool {
	if t.held == 0 && !t.refill() {
		return false
	}
	t.held--
	t.used++
	return true
}

// refill takes a chunk of values, or one once a chunk no longer fits, or
// waits while other parses hold some; it reports false when none are
// left and none are held.
func (t *tally) refill() bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t.release()
	for {
		left := c.left.Load()
		switch {
		case left >= valueChunk:
			t.held = valueChunk
		case left > 0:
			t.held = 1
		case c.holders > 0:
			c.back.Wait()
			continue
		default:
			c.refused = true
			return false
		}
		c.left.Add(-t.held)
		t.holding = true
		c.holders++
		return true
	}
}

// full reports whether the file has as many values as one may hold.
func (t *tally) full() bool { return t.used >= t.file }

// keep ends a parse: what it took and did not use goes back.
func (t *tally) keep() { t.giveBack(t.held) }

// drop ends a parse whose values are read again: everything it took goes
// back.
func (t *tally) drop() {
	t.giveBack(t.held + t.used)
	t.used = 0
}

// giveBack returns n values to the run's count, and ends the parse's
// holding.
func (t *tally) giveBack(n int64) {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.c.left.Add(n)
	t.held = 0
	t.release()
	t.c.back.Broadcast()
}

// release ends the parse's holding, under c.mu: its values are used or
// given back.
func (t *tally) release() {
	if t.holding {
		t.holding = false
		t.c.holders--
		t.c.back.Broadcast()
	}
}
