package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// Converged reports whether the rollout is done: with want, every
// sidecar runs want; without, every sidecar was asked and runs some
// revision. A sidecar that could not be asked is never done.
func Converged(rows []Sidecar, want string) bool {
	for _, r := range rows {
		if !r.Reachable || r.Revision == "" || want != "" && r.Revision != want {
			return false
		}
	}
	return true
}

// pollInterval is how often Watch asks again.
const pollInterval = time.Second

// firstRound is the least time Watch gives its first round, however short
// the wait: long enough for a sidecar without the status plugin to answer
// its three requests. (A variable, so that a test can wait less.)
var firstRound = 3 * requestTimeout

// Watch asks the sidecars about c.Bundle until Converged(rows, want) or
// wait has passed, as WatchEach does.
func (c Client) Watch(ctx context.Context, urls []string, want string, wait time.Duration) []Sidecar {
	return c.WatchEach(ctx, urls, []Want{{Bundle: c.Bundle, Revision: want}}, wait)[0]
}

// Want is a bundle asked about, and the revision wanted of it: "" for
// any.
type Want struct {
	Bundle, Revision string
}

// ConvergedEach reports whether every bundle of wants is done on every
// sidecar (Converged), rows[i] being what they say of wants[i].
func ConvergedEach(rows [][]Sidecar, wants []Want) bool {
	for i, w := range wants {
		if !Converged(rows[i], w.Revision) {
			return false
		}
	}
	return true
}

// WatchEach asks the sidecars about every bundle of wants (AskEach)
// until ConvergedEach or wait has passed, and returns the last answers
// of a whole round, rows[i] about wants[i]. The first round ends by wait
// or firstRound, whichever is later, however many sidecars there are
// (so wait 0 asks once); a sidecar it has not heard from by then is a
// row that timed out. A later round that wait cuts short, its sidecars
// not all answered, is not reported.
func (c Client) WatchEach(ctx context.Context, urls []string, wants []Want, wait time.Duration) [][]Sidecar {
	names := make([]string, len(wants))
	for i, w := range wants {
		names[i] = w.Bundle
	}
	deadline := time.Now().Add(wait)
	first, cancel := context.WithTimeout(ctx, max(wait, firstRound))
	rows := c.AskEach(first, urls, names)
	cancel()
	for !ConvergedEach(rows, wants) && time.Now().Add(pollInterval).Before(deadline) {
		select {
		case <-ctx.Done():
			return rows
		case <-time.After(pollInterval):
		}
		round, cancel := context.WithDeadline(ctx, deadline)
		next := c.AskEach(round, urls, names)
		cut := round.Err() != nil
		cancel()
		if cut {
			return rows
		}
		rows = next
	}
	return rows
}

// Report is what `status --format json` prints.
type Report struct {
	Bundle       string    `json:"bundle"`
	WantRevision string    `json:"want_revision,omitempty"`
	Converged    bool      `json:"converged"`
	Sidecars     []Sidecar `json:"sidecars"`
}

// WriteJSON writes r as one indented JSON object.
func (r Report) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// writeJSON writes v as one indented JSON object, <, > and & as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteTable writes one row a sidecar, "-" for what is not known.
func (r Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "URL\tREVISION\tLAST ACTIVATION\tLAST ERROR")
	for _, s := range r.Sidecars {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", printable.LineStart(s.URL), dash(s.Revision), dash(s.LastActivation), dash(s.LastError))
	}
	return tw.Flush()
}

// dash is s made printable, "-" when empty.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return printable.Quote(s)
}

// Reports is what `status --format json` prints when asked about several
// bundles: one Report a bundle, and whether all are done.
type Reports struct {
	Converged bool     `json:"converged"`
	Bundles   []Report `json:"bundles"`
}

// WriteJSON writes r as one indented JSON object.
func (r Reports) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// WriteTable writes one row a sidecar and bundle, a sidecar's bundles
// together, in the order asked, "-" for what is not known.
func (r Reports) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "URL\tBUNDLE\tREVISION\tLAST ACTIVATION\tLAST ERROR")
	if len(r.Bundles) > 0 {
		for j := range r.Bundles[0].Sidecars {
			for _, b := range r.Bundles {
				s := b.Sidecars[j]
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", printable.LineStart(s.URL), dash(b.Bundle), dash(s.Revision), dash(s.LastActivation), dash(s.LastError))
			}
		}
	}
	return tw.Flush()
}
