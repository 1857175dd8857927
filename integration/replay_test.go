package integration

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// widenGrant gives bob the write on ledger transfer that r1 lacks, and
// dan the mail reads: their own calls widen (to confirm_required, to
// allowed), and their calls on another's account change code (from
// capability_required to land_denied). r2 drops r1's default grants,
// which narrows carol's and alice's reads.
const widenGrant = `{
  "version": 1,
  "grants": [
    { "subject": "principal:bob", "pack_id": "ledger", "verb_key": "transfer", "capabilities": ["verb.exec.write"] },
    { "subject": "principal:dan", "pack_id": "mail", "capabilities": ["verb.exec.read", "sense.enable"] }
  ]
}
`

// maskBundle is a runtime bundle with OPA's decision log mask policy:
// events whose input has a secret get it erased.
var maskBundle = map[string]string{
	".manifest": `{"roots": ["system/log"]}`,
	"mask.rego": "package system.log\n\nmask contains \"/input/secret\" if input.input.secret\n",
}

// buildHCPRego builds the hcp-rego command into a temporary folder.
func buildHCPRego(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hcp-rego")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/hcp-rego").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// replayCommand runs bin replay with args and returns its stdout and exit
// code; exit 2 fails the test.
func replayCommand(t *testing.T, bin string, args ...string) ([]byte, int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"replay"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		if ee.ExitCode() == 2 {
			t.Fatalf("replay %q: exit 2\n%s", args, stderr.String())
		}
		return stdout.Bytes(), ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return stdout.Bytes(), 0
}

// replayCalls are the calls made under r1: every command and trigger of
// the example packs, for principals of every kind of grant, on their own
// account and another's, plus calls with a secret that OPA's mask erases.
func replayCalls(m *compile.Model) (calls, secret []map[string]any) {
	principals := []map[string]any{
		{"id": "bob", "roles": []any{"member"}},
		{"id": "carol"},
		{"id": "alice"},
		{"id": "ann", "tenant": "acme", "roles": []any{"admin"}},
		{"id": "eve", "tenant": "acme", "roles": []any{"dev"}},
		{"id": "dan", "roles": []any{"lead"}},
	}
	for _, p := range m.Packs() {
		for _, kind := range []struct {
			field string
			rows  map[string]*compile.Row
		}{{"verb_key", p.Verbs}, {"stimulus", p.Stimuli}} {
			for _, key := range slices.Sorted(mapsKeys(kind.rows)) {
				for _, pr := range principals {
					for _, owner := range []any{pr["id"], "zed"} {
						call := map[string]any{"principal": pr, "pack_id": p.ID, kind.field: key, "owner": owner}
						if key == "transfer" {
							call["args"] = map[string]any{"amount": json.Number("2.80"), "payee": "demo-transit"}
						}
						if p.ID == "workspace" {
							call["workspace"] = map[string]any{"root": "/home/eve/proj", "paths": []any{"/home/eve/proj/x"}}
						}
						calls = append(calls, call)
					}
				}
			}
		}
	}
	for _, c := range calls[:5] {
		s := map[string]any{"secret": "hunter2"}
		for k, v := range c {
			s[k] = v
		}
		secret = append(secret, s)
	}
	return calls, secret
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// expected is what docs/replay.md says a replay of records against the
// reference's r2 reports, worked out here on its own terms.
type expected struct {
	report struct {
		Replayed, Unchanged, Narrowed, Widened, Changed int64
		Skipped                                         map[string]int64
	}
	groups  map[string]int64  // "pack kind key from to change" → count
	example map[string]string // the same key → first decision_id
	changes []string          // each replayed event's change, "" when none, in log order
}

func disposition(code string) int {
	switch code {
	case "allowed":
		return 2
	case "confirm_required":
		return 1
	}
	return 0
}

func expect(t *testing.T, records [][]byte, r2 *reference.Evaluator) *expected {
	t.Helper()
	e := &expected{groups: map[string]int64{}, example: map[string]string{}}
	e.report.Skipped = map[string]int64{"other_path": 0, "error": 0, "masked": 0, "unreadable": 0}
	for _, rec := range records {
		var ev map[string]any
		dec := json.NewDecoder(bytes.NewReader(rec))
		dec.UseNumber()
		if dec.Decode(&ev) != nil || ev == nil {
			e.report.Skipped["unreadable"]++
			continue
		}
		path, _ := ev["path"].(string)
		_, hasID := ev["decision_id"]
		switch {
		case !hasID || path != "hcp/authz/decision" && path != "hcp/authz/allow":
			e.report.Skipped["other_path"]++
			continue
		case ev["error"] != nil:
			e.report.Skipped["error"]++
			continue
		case ev["input"] == nil:
			e.report.Skipped["masked"]++
			continue
		}
		if erased, _ := ev["erased"].([]any); len(erased) > 0 {
			e.report.Skipped["masked"]++
			continue
		}
		input := ev["input"].(map[string]any)
		now := r2.Decide(input, reference.Ext{})
		to := now["code"].(string)
		var from, change string
		if path == "hcp/authz/allow" {
			was := ev["result"].(bool)
			from = map[bool]string{true: "allow", false: "not_allow"}[was]
			is := now["allow"] == true
			switch {
			case is && !was:
				change = "widened"
			case was && !is:
				change = "narrowed"
			}
		} else {
			logged := ev["result"].(map[string]any)
			from = logged["code"].(string)
			switch d := disposition(to) - disposition(from); {
			case d > 0:
				change = "widened"
			case d < 0:
				change = "narrowed"
			case to != from || text(field(now, "source", "row")) != text(field(logged, "source", "row")) ||
				text(field(now, "preview", "cli")) != text(field(logged, "preview", "cli")):
				change = "changed"
			}
		}
		e.report.Replayed++
		e.changes = append(e.changes, change)
		switch change {
		case "":
			e.report.Unchanged++
			continue
		case "widened":
			e.report.Widened++
		case "narrowed":
			e.report.Narrowed++
		case "changed":
			e.report.Changed++
		}
		kind, key := "stimulus", input["stimulus"]
		if k, ok := input["verb_key"]; ok {
			kind, key = "verb", k
		}
		g := fmt.Sprintf("%s %s %s %s %s %s", input["pack_id"], kind, key, from, to, change)
		if e.groups[g] == 0 {
			e.example[g] = ev["decision_id"].(string)
		}
		e.groups[g]++
	}
	return e
}

func field(doc map[string]any, outer, inner string) any {
	o, _ := doc[outer].(map[string]any)
	return o[inner]
}

// check holds replay's json output to the expectation: every count, every
// group with its count and example, and the order of docs/replay.md.
func (e *expected) check(t *testing.T, out []byte) {
	t.Helper()
	var got struct {
		Replayed, Unchanged, Narrowed, Widened, Changed int64
		Skipped                                         map[string]int64
		Groups                                          []struct {
			PackID                               string `json:"pack_id"`
			Kind, Key, From, To, Change, Example string
			Count                                int64
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	counts := struct {
		Replayed, Unchanged, Narrowed, Widened, Changed int64
		Skipped                                         map[string]int64
	}{got.Replayed, got.Unchanged, got.Narrowed, got.Widened, got.Changed, got.Skipped}
	if !reflect.DeepEqual(counts, e.report) {
		t.Errorf("counts %+v, want %+v", counts, e.report)
	}
	groups, examples := map[string]int64{}, map[string]string{}
	rank := map[string]int{"widened": 0, "narrowed": 1, "changed": 2}
	for i, g := range got.Groups {
		k := fmt.Sprintf("%s %s %s %s %s %s", g.PackID, g.Kind, g.Key, g.From, g.To, g.Change)
		groups[k], examples[k] = g.Count, g.Example
		if i > 0 {
			p := got.Groups[i-1]
			if rank[p.Change] > rank[g.Change] || rank[p.Change] == rank[g.Change] && p.Count < g.Count {
				t.Errorf("group %d (%s %d) out of order after %s %d", i, g.Change, g.Count, p.Change, p.Count)
			}
		}
	}
	if !reflect.DeepEqual(groups, e.groups) {
		t.Errorf("groups\n%v\nwant\n%v", groups, e.groups)
	}
	if !reflect.DeepEqual(examples, e.example) {
		t.Errorf("examples\n%v\nwant\n%v", examples, e.example)
	}
}

// TestReplayOPALogs has a real OPA log the decisions of r1 for a generated
// set of calls, through both entry points, and replays its console log,
// and the same events as a gzip'd upload, against r2 (which narrows some
// calls, widens others and changes the deny code of others): replay
// reports exactly what the Go reference decides for r2.
func TestReplayOPALogs(t *testing.T) {
	t.Parallel()
	r1Model := exampleModel(t, acme, defaults)
	r1 := buildFile(t, r1Model, "r1", nil)
	r2Grants := writeFile(t, "widen.json", []byte(widenGrant))
	r2Model := exampleModel(t, acme, r2Grants)
	r2 := buildFile(t, r2Model, "r2", nil)
	bin := buildHCPRego(t)
	maskDir := t.TempDir()
	for name, body := range maskBundle {
		if err := os.WriteFile(filepath.Join(maskDir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	s := startOPA(t, "--bundle", r1, "--bundle", maskDir, "--set", "decision_logs.console=true")
	s.waitHealthy(t)
	calls, secret := replayCalls(r1Model)
	for _, c := range append(slices.Clone(calls), secret...) {
		s.query(t, "hcp/authz/decision", c)
		s.query(t, "hcp/authz/allow", c)
	}
	for _, c := range calls[:3] {
		s.query(t, "hcp/authz/gpars_error", c) // another path
	}
	want := 2*(len(calls)+len(secret)) + 3
	s.waitFor(t, "the decision log", startTimeout, func() bool {
		return strings.Count(s.logs.String(), `"msg":"Decision Log"`) >= want
	})

	// The console log as OPA wrote it, with events that carry an error
	// (made from logged ones: OPA logs one for an evaluation that failed)
	// and a last line cut short.
	lines := strings.SplitAfter(strings.TrimSpace(s.logs.String()), "\n")
	var errored []string
	for _, l := range lines {
		if len(errored) < 3 && strings.Contains(l, `"path":"hcp/authz/decision"`) {
			errored = append(errored, strings.Replace(l, `{`, `{"error":{"code":"internal_error","message":"eval cancelled"},`, 1))
		}
	}
	console := strings.Join(lines, "") + "\n" + strings.Join(errored, "") + lines[len(lines)-1][:20] + "\n"
	consoleFile := writeFile(t, "opa.log", []byte(console))

	records := splitLines(console)
	ref := reference.New(r2Model.Packs(), r2Model.Grants())
	e := expect(t, records, ref)
	if e.report.Widened == 0 || e.report.Narrowed == 0 || e.report.Changed == 0 {
		t.Fatalf("r2 must widen, narrow and change calls: %+v", e.report)
	}
	if e.report.Replayed != int64(2*len(calls)) || e.report.Skipped["masked"] != int64(2*len(secret)) ||
		e.report.Skipped["error"] != 3 || e.report.Skipped["unreadable"] != 1 || e.report.Skipped["other_path"] < 3 {
		t.Fatalf("the log is not what the test made: %+v", e.report)
	}

	t.Logf("expected of the console log: %+v, %d groups", e.report, len(e.groups))
	out, code := replayCommand(t, bin, "--bundle", r2, consoleFile, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	e.check(t, out)

	// The same events, as a decision log service receives them: a gzip'd
	// JSON array of the events alone.
	upload := uploadOf(t, records)
	uploadFile := writeFile(t, "upload.json.gz", upload)
	ea := expect(t, eventsOf(records), ref)
	out, _ = replayCommand(t, bin, "--bundle", r2, uploadFile, "--format", "json")
	ea.check(t, out)
	if ea.report.Replayed != e.report.Replayed || ea.report.Skipped["other_path"] != 3 {
		t.Fatalf("the upload lost events: %+v", ea.report)
	}

	// --fail-on widen exits 1 exactly when something widened: r2 widens
	// some of r1's calls; a log of the others passes.
	if _, code := replayCommand(t, bin, "--bundle", r2, consoleFile, "--fail-on", "widen"); code != 1 {
		t.Fatalf("--fail-on widen with %d widened: exit %d, want 1", e.report.Widened, code)
	}
	rest := writeFile(t, "rest.log", []byte(notWidened(records, e)))
	if _, code := replayCommand(t, bin, "--bundle", r2, rest, "--fail-on", "widen"); code != 0 {
		t.Fatalf("--fail-on widen with nothing widened: exit %d, want 0", code)
	}
	if _, code := replayCommand(t, bin, "--bundle", r2, rest, "--fail-on", "change"); code != 1 {
		t.Fatalf("--fail-on change with narrowed calls: exit %d, want 1", code)
	}
	// r1's log against r1 changes nothing.
	out, code = replayCommand(t, bin, "--bundle", r1, consoleFile, "--fail-on", "change", "--format", "json")
	if code != 0 {
		t.Fatalf("r1's log against r1 with --fail-on change: exit %d\n%s", code, out)
	}
	expect(t, records, reference.New(r1Model.Packs(), r1Model.Grants())).check(t, out)
}

// splitLines is the records of a console log.
func splitLines(log string) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
			out = append(out, bytes.Clone(l))
		}
	}
	return out
}

// eventsOf is the decision events of records, without the console's
// level, msg and time: what OPA uploads.
func eventsOf(records [][]byte) [][]byte {
	var out [][]byte
	for _, rec := range records {
		var ev map[string]json.RawMessage
		if json.Unmarshal(rec, &ev) != nil || ev["decision_id"] == nil {
			continue
		}
		delete(ev, "level")
		delete(ev, "msg")
		delete(ev, "time")
		data, _ := json.Marshal(ev)
		out = append(out, data)
	}
	return out
}

// uploadOf is the gzip'd JSON array of the events of records.
func uploadOf(t *testing.T, records [][]byte) []byte {
	t.Helper()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("[\n"))
	for i, ev := range eventsOf(records) {
		if i > 0 {
			zw.Write([]byte(",\n"))
		}
		zw.Write(ev)
	}
	zw.Write([]byte("\n]\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// notWidened is the console log of the replayed events that did not widen.
func notWidened(records [][]byte, e *expected) string {
	var b strings.Builder
	i := 0
	for _, rec := range records {
		var ev map[string]any
		if json.Unmarshal(rec, &ev) != nil || ev["decision_id"] == nil || ev["error"] != nil || ev["erased"] != nil {
			continue
		}
		if p := ev["path"]; p != "hcp/authz/decision" && p != "hcp/authz/allow" {
			continue
		}
		if e.changes[i] != "widened" {
			b.Write(rec)
			b.WriteByte('\n')
		}
		i++
	}
	return b.String()
}
