package document

import (
	"math"
	"sync"
	"sync/atomic"
)

// What the input files of one run may hold in all (docs/reliability.md,
// "Input files are bounded in values, in total"). A file's
// bytes are bounded by MaxFileBytes, but a parser holds values, some
// hundred bytes each however short their text, and a run reads many files:
// 60 MB of "[0,0,...]" made a 5 GB tree, and four such policy files 15 GB.
const (
	// MaxJSONValues bounds the values of the JSON files of one run that
	// NewBudget makes (case files, a decision input): 2.3 times the
	// 3,610,985 of the largest set measured when it was set (3,000 packs
	// and 300,000 grants): some 145 bytes a value, 1.2 GB of parsed
	// trees at most. The packs and grant files of a run have the larger
	// budget of SourceLimits.
	MaxJSONValues = 1 << 23
	// MaxFileValues bounds the values of one JSON file that a parse
	// holds at once: all of a file's, or, where a parse streams an array
	// (ParseJSONStream, a grant file's grants), those outside it and one
	// element's. Schema validation holds some 800 bytes for each value it
	// refuses, every one of a tree's before it returns (a file of
	// 1,048,570 bad grants, validated whole, cost lint 2.6 s and 820 MB).
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

// DefaultSourceBytes bounds the bytes of the packs and grant files of one
// run (SourceLimits): sized for a large IdP export, 1,000,000 grants (129
// MB written one a line, 7 million values) in one file or many, with
// 10,000 packs of 50 commands (113 MB, 6 million values), twice over.
const DefaultSourceBytes = 512 << 20

// SourceLimits are the limits of the packs and grant files of one run
// when their bytes in all are at most bytes: their JSON values a 16th of
// that (the sets measured hold one a 19 bytes), and the values held as
// parsed trees (the packs; a grant file's grants are streamed, not held)
// a 64th of it. At DefaultSourceBytes that is 33,554,432 values, and
// 8,388,608 held (1.2 GB of trees at most, 1.4 times 10,000 packs of
// 50 commands). One file's limits (MaxFileValues, and MaxFileBytes where
// a reader sets it) stay as they are; the YAML ones are NewBudget's.
func SourceLimits(bytes int64) Limits {
	return Limits{
		JSON: bytes / 16, Held: bytes / 64, Bytes: bytes,
		File: MaxFileValues, YAML: MaxYAMLValues, Aliases: MaxAliasValues,
	}
}

// Budget is what the input files of one run may still hold, all
// together: the values of its JSON files and those of them it holds in
// trees, the bytes of the files it reads with ReadSource or
// ReadJSONStream, the values its YAML files can make, and the values
// alias expansion adds to them (MaxAliasValues). A command makes one and
// reads each file with it. What a file takes stays
// taken, whether the file is kept or refused: a run reads so many values
// in all. It is safe for concurrent use.
type Budget struct {
	json, yaml, aliases count
	trees               atomicCount // the JSON values kept in parsed trees
	bytes               byteCount   // the bytes of the files ReadSource reads
	fileValues          int64       // the values of one JSON file
	hint                string      // Limits.Hint
}

// Refused reports whether a read or a JSON parse with the budget was
// refused for want of the run's values or bytes: its files hold more
// than a limit of the run. Which file that was, when they are read in
// parallel, depends on the order they ran in: a caller that must refuse
// the same input alike reads again in order.
func (b *Budget) Refused() bool {
	b.json.mu.Lock()
	defer b.json.mu.Unlock()
	return b.json.refusals > 0 || b.trees.refusals.Load() > 0 || b.bytes.refused.Load()
}

// Limits are a budget's limits.
type Limits struct {
	JSON, File, YAML, Aliases int64
	// Held bounds the JSON values that the run keeps in parsed trees: all
	// but the elements of an array that ParseJSONStream streams. 0 sets
	// no limit of its own (JSON's holds).
	Held int64
	// Bytes bounds the bytes of the files that the run reads with
	// ReadSource; 0 sets none.
	Bytes int64
	// Hint, when set, says how to raise the run's limits (a flag, say):
	// a refusal for want of the run's values or bytes ends with it, so
	// that a run names it once, where the run passes its limit.
	Hint string
}

// NewBudget returns the budget of one run.
func NewBudget() *Budget {
	return NewBudgetOf(Limits{JSON: MaxJSONValues, File: MaxFileValues, YAML: MaxYAMLValues, Aliases: MaxAliasValues})
}

// NewBudgetOf returns a budget of the given limits.
func NewBudgetOf(l Limits) *Budget {
	b := &Budget{fileValues: l.File, hint: l.Hint}
	b.trees.limit, b.bytes.limit = l.Held, l.Bytes
	b.trees.left.Store(l.Held)
	b.bytes.left = l.Bytes
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
	holders int // the parses holding values they have not used
	// refusals counts the parses refused for want of values, but those
	// read again (drop).
	refusals int
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

// atomicCount is a limit of a budget that values are taken from one at
// a time, none held unused, so that it refuses a value exactly when the
// run's files hold more than its limit, whatever the order they are read
// in: no parse ever waits for it.
type atomicCount struct {
	limit int64 // 0: none
	left  atomic.Int64
	// refusals counts the parses refused for want of values, but those
	// read again (tally.drop).
	refusals atomic.Int64
}

// one takes one value, and reports whether the run had room for it.
func (c *atomicCount) one() bool {
	if c.limit == 0 {
		return true
	}
	if c.left.Add(-1) < 0 {
		c.left.Add(1)
		c.refusals.Add(1)
		return false
	}
	return true
}

// giveBack returns n values taken.
func (c *atomicCount) giveBack(n int64) {
	if c.limit != 0 {
		c.left.Add(n)
	}
}

// byteCount is the bytes of a run's files, taken as they are read.
type byteCount struct {
	limit   int64 // 0: none
	mu      sync.Mutex
	left    int64
	refused atomic.Bool
}

// leftNow returns the bytes the run has left: as many as it likes when
// it has no limit. Files read in parallel take from it meanwhile.
func (c *byteCount) leftNow() int64 {
	if c.limit == 0 {
		return math.MaxInt64
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.left
}

// take takes up to n bytes and returns how many it took: fewer than n
// when the run has no room for the rest.
func (c *byteCount) take(n int64) int64 {
	if c.limit == 0 {
		return n
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	got := min(n, c.left)
	c.left -= got
	if got < n {
		c.refused.Store(true)
	}
	return got
}

// tally counts the values of one JSON parse against the run's count. It
// takes them valueChunk at a time, so that files parsed in parallel do
// not contend for every value, and one at a time once a chunk no longer
// fits. A parse is refused only when every value of the run's limit is
// used: one that finds none left while other parses hold values they
// took and have not used waits for them to use or return them. So a run
// is refused exactly when its files hold more values than its limit,
// alone or in parallel; which parse is refused then depends on the order
// they ran in (see Budget.Refused). The values a parse keeps in its tree
// are counted in the run's held count too, one at a time.
type tally struct {
	c          *count
	trees      *atomicCount
	file       int64 // the most values of one file held at once
	used, held int64
	kept       int64 // the values kept in the tree, counted in trees
	streamed   int64 // the values of the streamed elements handed on
	holding    bool  // counted in c.holders
	why        limitKind
	hint       string // Limits.Hint
}

// limitKind is the limit that a parse met.
type limitKind uint8

const (
	noLimit   limitKind = iota
	fileLimit           // the values of one file held at once
	runLimit            // the values of the run
	heldLimit           // the values the run holds in trees
)

// newTally returns the tally of one parse with budget b.
func newTally(b *Budget) *tally {
	return &tally{c: &b.json, trees: &b.trees, file: b.fileValues, hint: b.hint}
}

// one counts one value, kept in the tree or not, and reports whether the
// file and the run had room for it.
func (t *tally) one(kept bool) bool {
	switch {
	case t.used-t.streamed >= t.file:
		t.why = fileLimit
		return false
	case t.held == 0 && !t.refill():
		t.why = runLimit
		return false
	case kept && !t.trees.one():
		t.why = heldLimit
		return false
	}
	if kept {
		t.kept++
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
			c.refusals++
			return false
		}
		c.left.Add(-t.held)
		t.holding = true
		c.holders++
		return true
	}
}

// handedOn says that the values of a streamed element, n of them, are no
// longer held: the next element may hold as many.
func (t *tally) handedOn(n int64) { t.streamed += n }

// keep ends a parse: what it took and did not use goes back.
func (t *tally) keep() { t.giveBack(t.held) }

// drop ends a parse whose values are read again: everything it took goes
// back, and its refusal, if any, is no longer the run's.
func (t *tally) drop() {
	switch t.why {
	case runLimit:
		t.c.mu.Lock()
		t.c.refusals--
		t.c.mu.Unlock()
	case heldLimit:
		t.trees.refusals.Add(-1)
	}
	t.giveBack(t.held + t.used)
	t.trees.giveBack(t.kept)
	t.used, t.kept, t.streamed, t.why = 0, 0, 0, noLimit
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
