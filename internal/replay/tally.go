package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// tally counts the events of a batch, or of every batch merged. Merging
// adds counts and keeps the earliest example and unreadable records, so
// that the order batches merge in changes nothing.
type tally struct {
	replayed, unchanged, narrowed, widened, changed int64
	skipped                                         Skipped
	groups                                          *groups
	unreadable                                      []named
}

type groupKey struct {
	call     Call
	from, to string
	change   Change
}

// named is an unreadable record's message and its place in the logs.
type named struct {
	seq int64
	msg string
}

func newTally(maxGroups int) *tally { return &tally{groups: newGroups(maxGroups)} }

// add counts one record, the seq-th of the logs, read from file.
func (t *tally) add(ctx context.Context, c *cache, file string, seq int64, rec Record) error {
	if rec.Problem != "" {
		t.unreadableAt(seq, fmt.Sprintf("%s:%d: %s", printable.Quote(file), rec.Line, rec.Problem))
		return nil
	}
	ev, reason := Classify(rec.Text)
	switch reason {
	case OtherPath:
		t.skipped.OtherPath++
		return nil
	case Errored:
		t.skipped.Error++
		return nil
	case Masked:
		t.skipped.Masked++
		return nil
	case Unreadable:
		t.unreadableAt(seq, fmt.Sprintf("%s:%d: not a JSON object", printable.Quote(file), rec.Line))
		return nil
	}
	now, err := c.get(ctx, ev)
	if errors.Is(err, errOutOfRange) {
		t.unreadableAt(seq, fmt.Sprintf("%s:%d: %v", printable.Quote(file), rec.Line, err))
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s:%d: decide the logged input: %w", printable.LineStart(file), rec.Line, err)
	}
	t.replayed++
	change := judge(ev, now)
	switch change {
	case "":
		t.unchanged++
		return nil
	case Widened:
		t.widened++
	case Narrowed:
		t.narrowed++
	case Changed:
		t.changed++
	}
	// The logged code is the log's text, kept short as a call's fields are.
	t.groups.add(groupKey{call: now.call, from: kept(ev.Logged.Code), to: now.Code, change: change}, 1, seq, kept(ev.DecisionID))
	return nil
}

func (t *tally) unreadableAt(seq int64, msg string) {
	t.skipped.Unreadable++
	if len(t.unreadable) < MaxNamed {
		t.unreadable = append(t.unreadable, named{seq: seq, msg: msg})
	}
}

// merge adds u to t.
func (t *tally) merge(u *tally) {
	t.replayed += u.replayed
	t.unchanged += u.unchanged
	t.narrowed += u.narrowed
	t.widened += u.widened
	t.changed += u.changed
	t.skipped.OtherPath += u.skipped.OtherPath
	t.skipped.Error += u.skipped.Error
	t.skipped.Masked += u.skipped.Masked
	t.skipped.Unreadable += u.skipped.Unreadable
	for k, g := range u.groups.byKey {
		t.groups.add(k, g.Count, g.first, g.Example)
	}
	t.groups.capped = t.groups.capped || u.groups.capped
	t.unreadable = append(t.unreadable, u.unreadable...)
	slices.SortFunc(t.unreadable, func(a, b named) int { return cmp.Compare(a.seq, b.seq) })
	t.unreadable = t.unreadable[:min(len(t.unreadable), MaxNamed)]
}

// report is the tally as a report, its groups in the order of
// docs/replay.md.
func (t *tally) report() *Report {
	r := &Report{
		Replayed: t.replayed, Unchanged: t.unchanged, Narrowed: t.narrowed,
		Widened: t.widened, Changed: t.changed, Skipped: t.skipped,
		Groups: make([]Group, 0, len(t.groups.byKey)),
	}
	for _, e := range t.groups.byKey {
		r.Groups = append(r.Groups, e.Group)
	}
	if t.groups.capped {
		r.GroupsCapped = t.groups.max
	}
	slices.SortFunc(r.Groups, compareGroups)
	for _, n := range t.unreadable {
		r.Unreadable = append(r.Unreadable, n.msg)
	}
	return r
}

// compareGroups orders groups widened first, then narrowed, then changed,
// then by count descending, then by call and codes.
func compareGroups(a, b Group) int {
	return cmp.Or(
		cmp.Compare(changeOrder[a.Change], changeOrder[b.Change]),
		cmp.Compare(b.Count, a.Count),
		cmp.Compare(a.PackID, b.PackID),
		cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.Key, b.Key),
		cmp.Compare(a.From, b.From),
		cmp.Compare(a.To, b.To),
	)
}
