package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/internal/policy"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/replay"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

type replayOptions struct {
	args   []string // PACK_DIR... and LOG...: folders are packs, the rest logs
	policy policyFlags
	ext    []string
	format string
	failOn string
}

func newReplayCommand(s streams) *cobra.Command {
	var o replayOptions
	cmd := &cobra.Command{
		Use:   "replay (--bundle FILE|REF | PACK_DIR... --grants FILE...) LOG...|-",
		Short: "Decide logged calls again with a candidate policy: what would it widen, narrow or change?",
		Long: `Replay reads OPA decision log events (docs/replay.md) and decides each logged
input again with the candidate policy: a bundle (--bundle, verified with
--verification-key as eval does), or pack folders and grant files. A LOG
is a file or - for stdin: OPA's console decision log (one JSON event a
line, among OPA's own log lines) or a decision log service upload (a JSON
array of events), either one gzip'd. The arguments that are folders are
packs; the others are logs.

Events of hcp/authz/decision and hcp/authz/allow replay; the others are
counted by reason: other_path, error, masked (an erased or masked part of
the input, never guessed) and unreadable (named on stderr with file:line,
the first 10). A line or array element longer than 1 MiB is unreadable.
A log whose array breaks off, or holds other text after its arrays, is an
unreadable file (exit 2 at file:line:col): its events would go uncounted.
Identical inputs are decided once. The changes are grouped by pack, call
and old and new code: widened first, then narrowed, then changed; at most
25,000 groups are listed, and the counts hold every decision.

--fail-on widen exits 1 when any decision widened; --fail-on change when
any is not unchanged. On a terminal, stderr shows the progress.`,
		Example: `  hcp-rego build testdata/packs --grants testdata/grants/acme.json -o candidate.tar.gz
  hcp-rego replay --bundle candidate.tar.gz testdata/logs/decisions.log --format markdown --fail-on widen
  gzip -c testdata/logs/decisions.log | hcp-rego replay testdata/packs --grants testdata/grants/acme.json -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			return runReplay(cmd.Context(), s, o)
		},
	}
	addPolicyFlags(cmd, &o.policy, "the candidate bundle instead of packs: a .tar.gz or folder, or an OCI REF (pulled as pull does) when no such file is there; repeatable: a sharded build's policy bundle and shards, or its folder")
	f := cmd.Flags()
	addRegistryFlag(f, &o.policy.bundleFlags, "with --bundle REF: talk HTTP, not HTTPS, to the registry")
	f.StringArrayVar(&o.ext, "ext", nil, "load a runtime's hcp.ext rules: a .rego file or a folder of them (repeatable)")
	f.StringVar(&o.format, "format", "pretty", "output format: pretty, markdown or json")
	f.StringVar(&o.failOn, "fail-on", "", "exit 1 when a decision widened (widen) or when any changed (change)")
	return cmd
}

func runReplay(ctx context.Context, s streams, o replayOptions) error {
	logs, err := o.split()
	if err != nil {
		return badInput(err)
	}
	// The logs, the candidate and the runtime rules are opened before any
	// is judged, so that every bad file is reported at once.
	var errs problem.Errors
	sources, closeAll, err := openLogs(s.in, logs)
	defer closeAll()
	errs.Merge("", err)
	candidate, err := policy.Read(ctx, o.policy.source(o.ext))
	errs.Merge("", err)
	if len(errs) > 0 {
		return badInput(errs.Err())
	}
	ev, err := candidate.Evaluator(ctx)
	if err != nil {
		return badInput(err)
	}
	defer boundMemory()()
	opts := replay.Options{}
	if terminal(s.err) {
		opts.Progress = progressLine(s.err)
	}
	r, err := replay.Run(ctx, decideWith(ev), sources, opts)
	if opts.Progress != nil {
		fmt.Fprint(s.err, "\r\x1b[K")
	}
	if err != nil {
		return badInput(err)
	}
	writeUnreadable(s.err, r)
	if o.format == "json" && r.GroupsCapped > 0 {
		fmt.Fprintln(s.err, r.GroupsNote())
	}
	if err := writeReport(s.out, o.format, r); err != nil {
		return err
	}
	return o.gate(r)
}

// replayHeadroom is what a replay may use beside the prepared evaluator:
// batches of records in flight, the cache of decisions and the garbage
// between collections. (A soft limit: a full cache can take more, and the
// collector then runs often.)
const replayHeadroom = 192 << 20

// boundMemory keeps the process's heap within replayHeadroom of what the
// prepared evaluator holds, through Go's soft memory limit, unless
// GOMEMLIMIT sets one, and returns the function that restores the limit.
// Without it the collector lets the heap grow to twice the evaluator's,
// which for a large grant set is hundreds of MB for nothing; with it the
// collector runs more often.
func boundMemory() (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	prev := debug.SetMemoryLimit(int64(m.HeapAlloc) + replayHeadroom)
	return func() { debug.SetMemoryLimit(prev) }
}

// decideWith is the replay's decision step: the embedded evaluator,
// prepared once and shared by every worker.
func decideWith(ev *hcprego.Evaluator) replay.Decide {
	return func(ctx context.Context, input any) (map[string]any, error) {
		res, err := ev.Decide(ctx, input)
		if err != nil {
			return nil, err
		}
		return res.Decision.Doc, nil
	}
}

// split checks the options and sorts the arguments: the folders are the
// candidate's packs, the rest are logs.
func (o *replayOptions) split() (logs []string, err error) {
	switch {
	case o.format != "pretty" && o.format != "markdown" && o.format != "json":
		return nil, fmt.Errorf("--format %q: want pretty, markdown or json", o.format)
	case o.failOn != "" && o.failOn != "widen" && o.failOn != "change":
		return nil, fmt.Errorf("--fail-on %q: want widen or change", o.failOn)
	}
	if err := o.policy.checkBundleFlags(); err != nil {
		return nil, err
	}
	stdin := 0
	for _, a := range o.args {
		if info, err := os.Stat(a); err == nil && info.IsDir() {
			o.policy.packs = append(o.policy.packs, a)
			continue
		}
		if a == "-" {
			stdin++
		}
		logs = append(logs, a)
	}
	switch {
	case o.policy.mixed():
		return nil, errors.New("give either --bundle or PACK_DIR... and --grants, not both (a LOG is a file, not a folder)")
	case len(o.policy.bundles) == 0 && len(o.policy.packs) == 0:
		//lint:ignore ST1005 the message ends with the command's own syntax
		return nil, errors.New("no candidate policy: give --bundle FILE or PACK_DIR... --grants FILE...")
	case len(logs) == 0:
		return nil, errors.New("no LOG: give decision log files, or - for stdin")
	case stdin > 1:
		return nil, errors.New("- (stdin) given more than once")
	}
	return logs, nil
}

// openLogs opens every log before any is read, so that a missing one
// stops the run before the work. The returned function closes the files
// opened, whether or not all were.
func openLogs(stdin io.Reader, paths []string) ([]replay.Log, func(), error) {
	var logs []replay.Log
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	var errs problem.Errors
	for _, p := range paths {
		if p == "-" {
			logs = append(logs, replay.Log{Name: "<stdin>", Reader: stdin})
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			errs.Add(p, problem.Pos{}, "%s", problem.Describe(err, "no such file"))
			continue
		}
		files = append(files, f)
		logs = append(logs, replay.Log{Name: p, Reader: f})
	}
	return logs, closeAll, errs.Err()
}

// writeReport writes the report in format.
func writeReport(w io.Writer, format string, r *replay.Report) error {
	switch format {
	case "json":
		return replay.WriteJSON(w, r)
	case "markdown":
		return replay.WriteMarkdown(w, r)
	}
	return replay.WritePretty(w, r)
}

// writeUnreadable names the first unreadable records on stderr.
func writeUnreadable(w io.Writer, r *replay.Report) {
	for _, u := range r.Unreadable {
		fmt.Fprintf(w, "unreadable: %s\n", u)
	}
	if more := r.Skipped.Unreadable - int64(len(r.Unreadable)); more > 0 {
		fmt.Fprintf(w, "unreadable: %d more not named\n", more)
	}
}

// gate is the exit of --fail-on.
func (o replayOptions) gate(r *replay.Report) error {
	switch {
	case o.failOn == "widen" && r.Widened > 0:
		return findings()
	case o.failOn == "change" && r.Replayed != r.Unchanged:
		return findings()
	}
	return nil
}

// terminal reports whether w is a terminal.
func terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// progressLine shows the progress on one terminal line, rewritten in place
// and cleared at the end.
func progressLine(w io.Writer) func(replay.Progress) {
	return func(p replay.Progress) {
		rate := 0.0
		if secs := p.Elapsed.Seconds(); secs > 0 {
			rate = float64(p.Events) / secs
		}
		fmt.Fprintf(w, "\r\x1b[K%d events read, %d distinct inputs decided, %.0f events/s", p.Events, p.Decided, rate)
	}
}
