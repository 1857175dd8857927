// Package replay answers "what would this policy change do to the calls we
// really get?" (docs/replay.md). It reads OPA decision log events,
// streaming, decides each logged input again with a candidate policy, and
// groups the decisions that came out otherwise.
//
// The package knows nothing of how the candidate is built: it takes a
// Decide function. Identical inputs (by canonical JSON) are decided once,
// on every core, and the report is the same whatever the parallelism:
// counts add up in any order, and each group's example is its first event
// in log order.
package replay

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/open-policy-agent/opa/v1/ast"
	"golang.org/x/sync/errgroup"

	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// Decide decides one input, decoded with numbers as json.Number, and
// returns its decision document (docs/decisions.md#the-decision-document).
// It must be safe for concurrent use.
type Decide func(ctx context.Context, input any) (map[string]any, error)

// Log is one decision log to read, named for messages.
type Log struct {
	Name   string
	Reader io.Reader
}

// DefaultMaxCached is how many distinct inputs the cache of decisions
// holds (a run of 300,000 distinct inputs peaked at 259 MB). Beyond it, a
// new input is decided each time it comes, and the report says so.
const DefaultMaxCached = 250_000

// MaxWorkers bounds the default number of workers. Each holds one event
// as it decides it, and an event of 1 MiB of small values takes some 55
// MB parsed and converted for OPA, so the number of cores would otherwise
// set how much memory a log of such events costs (16 workers peaked at
// 663 MB, 1 at 182 MB).
const MaxWorkers = 8

// MaxNamed is how many unreadable records a report names.
const MaxNamed = 10

// Options tune a replay; the zero value is the default.
type Options struct {
	Workers        int // decisions in parallel; GOMAXPROCS, at most MaxWorkers, when 0
	MaxRecordBytes int // the longest event; DefaultMaxRecordBytes when 0
	MaxCached      int // distinct inputs cached; DefaultMaxCached when 0
	MaxGroups      int // groups listed; DefaultMaxGroups when 0
	// Progress, when set, is called now and then, and once at the end,
	// from one goroutine.
	Progress func(Progress)
}

// Progress is how far a replay has come.
type Progress struct {
	Events  int64 // records read
	Decided int64 // distinct inputs decided
	Elapsed time.Duration
}

// Change is how a new decision differs from the logged one.
type Change string

// The changes of docs/replay.md, in the order groups are listed.
const (
	Widened  Change = "widened"
	Narrowed Change = "narrowed"
	Changed  Change = "changed"
)

var changeOrder = map[Change]int{Widened: 0, Narrowed: 1, Changed: 2}

// Report is the outcome of a replay.
type Report struct {
	Replayed, Unchanged, Narrowed, Widened, Changed int64
	Skipped                                         Skipped
	Groups                                          []Group
	// Unreadable names the first MaxNamed unreadable records, in log
	// order, as "file:line: problem".
	Unreadable []string
	// Decided is the number of decisions made.
	Decided int64
	// CacheCapped is MaxCached when there were more distinct inputs than
	// the cache holds, so that some inputs were decided more than once;
	// 0 otherwise.
	CacheCapped int
	// GroupsCapped is MaxGroups when there were more groups than a report
	// lists, so that some changed decisions are in no listed group (see
	// Unlisted); 0 otherwise.
	GroupsCapped int
}

// Unlisted is the number of changed decisions (narrowed, widened or
// changed) that no listed group counts.
func (r *Report) Unlisted() int64 {
	n := r.Narrowed + r.Widened + r.Changed
	for _, g := range r.Groups {
		n -= g.Count
	}
	return n
}

// Skipped counts the events that do not replay, by reason.
type Skipped struct {
	OtherPath, Error, Masked, Unreadable int64
}

// Total is the number of events skipped.
func (s Skipped) Total() int64 { return s.OtherPath + s.Error + s.Masked + s.Unreadable }

// Group is a set of identical changes: one call, one old code, one new.
type Group struct {
	PackID, Kind, Key string
	From, To          string
	Change            Change
	Count             int64
	Example           string // the decision_id of the group's first event
	first             int64  // the first event's place in the logs
}

// Run replays the events of logs, in order, against decide. An error
// reading a log (not a bad record in it: those are counted unreadable) or
// deciding an input ends the run.
func Run(ctx context.Context, decide Decide, logs []Log, o Options) (*Report, error) {
	o = o.withDefaults()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, ctx := errgroup.WithContext(ctx)
	batches := make(chan batch, o.Workers)
	tallies := make(chan *tally, o.Workers)
	c := newCache(o.MaxCached, decide)
	var read atomic.Int64
	g.Go(func() error {
		defer close(batches)
		return scan(ctx, logs, o.MaxRecordBytes, batches, &read)
	})
	var workers sync.WaitGroup
	for range o.Workers {
		workers.Add(1)
		g.Go(func() error {
			defer workers.Done()
			return work(ctx, c, o.MaxGroups, batches, tallies)
		})
	}
	go func() { workers.Wait(); close(tallies) }()
	stop := startProgress(o.Progress, &read, &c.decided)
	total := newTally(o.MaxGroups)
	for t := range tallies {
		total.merge(t)
	}
	stop()
	if err := g.Wait(); err != nil {
		return nil, err
	}
	r := total.report()
	r.Decided = c.decided.Load()
	if c.capped.Load() {
		r.CacheCapped = o.MaxCached
	}
	return r, nil
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = min(runtime.GOMAXPROCS(0), MaxWorkers)
	}
	if o.MaxRecordBytes <= 0 {
		o.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if o.MaxCached <= 0 {
		o.MaxCached = DefaultMaxCached
	}
	if o.MaxGroups <= 0 {
		o.MaxGroups = DefaultMaxGroups
	}
	return o
}

// startProgress calls report every 200ms until the returned stop is
// called, which reports once more.
func startProgress(report func(Progress), read, decided *atomic.Int64) (stop func()) {
	if report == nil {
		return func() {}
	}
	start := time.Now()
	now := func() Progress {
		return Progress{Events: read.Load(), Decided: decided.Load(), Elapsed: time.Since(start)}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				report(now())
			case <-done:
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		report(now())
	}
}

// batch is a run of records, copied out of the reader, with the place in
// the logs of the first.
type batch struct {
	file    string
	first   int64
	records []Record
}

// Batches hold at most this many records, or this many bytes of them.
const (
	batchRecords = 256
	batchBytes   = 256 << 10
)

// scan reads the logs in order and sends their records in batches. A
// batch's texts share one allocation, its arena.
func scan(ctx context.Context, logs []Log, maxRecord int, out chan<- batch, read *atomic.Int64) error {
	var seq int64
	for _, l := range logs {
		r, err := NewReader(l.Reader, maxRecord)
		if err != nil {
			return fmt.Errorf("read %s: %w", printable.Quote(l.Name), err)
		}
		b := batch{file: l.Name, first: seq}
		var arena []byte
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("%s:%d:%d: %w", printable.LineStart(l.Name), r.line, r.col(), err)
			}
			if len(b.records) == batchRecords || len(arena)+len(rec.Text) > cap(arena) && len(b.records) > 0 {
				if err := send(ctx, out, b); err != nil {
					return err
				}
				b, arena = batch{file: l.Name, first: seq}, nil
			}
			if arena == nil {
				arena = make([]byte, 0, max(batchBytes, len(rec.Text)))
			}
			start := len(arena)
			arena = append(arena, rec.Text...)
			rec.Text = arena[start:len(arena):len(arena)]
			b.records = append(b.records, rec)
			seq++
			read.Add(1)
		}
		if len(b.records) > 0 {
			if err := send(ctx, out, b); err != nil {
				return err
			}
		}
	}
	return nil
}

func send[T any](ctx context.Context, out chan<- T, v T) error {
	select {
	case out <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// work classifies and decides the records of each batch it takes, and
// sends the tally of each batch, so that the groups held beside the whole
// run's are a batch's at most, whatever the number of workers.
func work(ctx context.Context, c *cache, maxGroups int, in <-chan batch, out chan<- *tally) error {
	for b := range in {
		if err := ctx.Err(); err != nil {
			return err
		}
		t := newTally(maxGroups)
		for i, rec := range b.records {
			if err := t.add(ctx, c, b.file, b.first+int64(i), rec); err != nil {
				return err
			}
		}
		if err := send(ctx, out, t); err != nil {
			return err
		}
	}
	return nil
}

// cache decides each distinct input once: a later event of the same input
// waits for the first one's decision, then shares it.
type cache struct {
	decide  Decide
	max     int
	decided atomic.Int64
	capped  atomic.Bool

	mu       sync.Mutex
	entries  map[[sha256.Size]byte]*entry // by the sha256 of the canonical JSON
	raw      map[[sha256.Size]byte]*entry // by the sha256 of the bytes as logged
	interned map[string]string
}

type entry struct {
	once sync.Once
	now  decided
	err  error
}

// decided is what a new decision is judged on, and the call it is about.
type decided struct {
	Outcome
	allow bool
	call  Call
}

func newCache(max int, decide Decide) *cache {
	return &cache{decide: decide, max: max, entries: map[[sha256.Size]byte]*entry{}, raw: map[[sha256.Size]byte]*entry{}, interned: map[string]string{}}
}

// get returns the new decision for ev's input. An input logged with the
// same bytes as one met before is found by them, without canonicalizing
// it (OPA logs the same input the same way); another is found by its
// canonical JSON.
func (c *cache) get(ctx context.Context, ev *Event) (decided, error) {
	raw := sha256.Sum256(ev.Input)
	c.mu.Lock()
	e := c.raw[raw]
	c.mu.Unlock()
	if e == nil {
		key := sha256.Sum256(canonicalKey(ev.Input))
		c.mu.Lock()
		e = c.entries[key]
		if e == nil && len(c.entries) < c.max {
			e = &entry{}
			c.entries[key] = e
		}
		if e != nil && len(c.raw) < c.max {
			c.raw[raw] = e
		}
		c.mu.Unlock()
	}
	if e == nil {
		c.capped.Store(true)
		return c.decideOnce(ctx, ev.Input)
	}
	e.once.Do(func() { e.now, e.err = c.decideOnce(ctx, ev.Input) })
	return e.now, e.err
}

// decideOnce decides the logged input and keeps what the comparison
// needs.
func (c *cache) decideOnce(ctx context.Context, raw jsontext.Value) (decided, error) {
	c.decided.Add(1)
	var input any
	if err := unmarshal(raw, &input); err != nil {
		return decided{}, fmt.Errorf("read the logged input: %w", err)
	}
	if outOfRange(input) {
		return decided{}, errOutOfRange
	}
	doc, err := c.decide(ctx, input)
	if err != nil {
		return decided{}, err
	}
	code, ok := doc["code"].(string)
	if !ok {
		return decided{}, fmt.Errorf("the candidate's decision has no code: %v", doc)
	}
	out := decided{Outcome: outcomeOf(doc, code), allow: doc["allow"] == true, call: callOf(input)}
	c.mu.Lock()
	out.Code = c.intern(out.Code)
	out.Row = c.intern(out.Row)
	c.mu.Unlock()
	return out, nil
}

// errOutOfRange is decideOnce's error for an input that holds a number
// OPA does not evaluate (1e100000, say): OPA refuses such an input, so a
// sidecar never decided it, and the event is counted unreadable rather
// than ending the run.
var errOutOfRange = errors.New("its input holds a number beyond the range of numbers OPA evaluates")

// outOfRange reports whether a decoded JSON value holds a number that OPA
// refuses to evaluate.
func outOfRange(v any) bool {
	switch v := v.(type) {
	case json.Number:
		_, err := ast.NumberChecked(string(v))
		return err != nil
	case []any:
		return slices.ContainsFunc(v, outOfRange)
	case map[string]any:
		for _, x := range v {
			if outOfRange(x) {
				return true
			}
		}
	}
	return false
}

// intern shares the few distinct codes and rows among all entries.
func (c *cache) intern(s string) string {
	if t, ok := c.interned[s]; ok {
		return t
	}
	c.interned[s] = s
	return s
}

// judge compares a new decision with the logged one: the change (""
// when none) and the new code.
func judge(ev *Event, now decided) Change {
	was := ev.Logged.Disposition
	is := now.Disposition
	if ev.AllowOnly {
		is = Deny
		if now.allow {
			is = Allow
		}
	}
	switch {
	case is > was:
		return Widened
	case is < was:
		return Narrowed
	case ev.AllowOnly:
		return ""
	case now.Code != ev.Logged.Code || now.Row != ev.Logged.Row || now.CLI != ev.Logged.CLI:
		return Changed
	}
	return ""
}
