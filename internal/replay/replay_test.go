package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// candidate is a stand-in policy: an input's "now" field is the code it
// decides, with "row" and "cli" copied into source.row and preview.cli.
func candidate(calls *atomic.Int64) Decide {
	return func(_ context.Context, input any) (map[string]any, error) {
		if calls != nil {
			calls.Add(1)
		}
		in, _ := input.(map[string]any)
		code, _ := in["now"].(string)
		doc := map[string]any{"allow": code == "allowed", "code": code}
		if row, ok := in["row"]; ok {
			doc["source"] = map[string]any{"row": row}
		}
		if cli, ok := in["cli"]; ok {
			doc["preview"] = map[string]any{"cli": cli}
		}
		return doc, nil
	}
}

// event is one console log line of a decision at path, whose input the
// candidate decides now and whose logged result is result.
func event(id, path, now string, result any, extra ...string) string {
	input := fmt.Sprintf(`{"pack_id":"ledger","verb_key":"transfer","now":%q}`, now)
	res, _ := json.Marshal(result)
	line := fmt.Sprintf(`{"level":"info","msg":"Decision Log","decision_id":%q,"path":%q,"input":%s,"result":%s`, id, path, input, res)
	for _, e := range extra {
		line += "," + e
	}
	return line + "}\n"
}

func decision(code string) map[string]any {
	return map[string]any{"allow": code == "allowed", "code": code}
}

func run(t *testing.T, decide Decide, o Options, logs ...string) *Report {
	t.Helper()
	var ls []Log
	for i, l := range logs {
		ls = append(ls, Log{Name: fmt.Sprintf("log%d", i+1), Reader: strings.NewReader(l)})
	}
	r, err := Run(context.Background(), decide, ls, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDispositions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		line   string
		change Change // "" for unchanged
		from   string
		to     string
	}{
		{"deny to allow widens", event("1", DecisionPath, "allowed", decision("land_denied")), Widened, "land_denied", "allowed"},
		{"deny to ask widens", event("1", DecisionPath, "confirm_required", decision("capability_required")), Widened, "capability_required", "confirm_required"},
		{"ask to allow widens", event("1", DecisionPath, "allowed", decision("confirm_required")), Widened, "confirm_required", "allowed"},
		{"allow to ask narrows", event("1", DecisionPath, "confirm_required", decision("allowed")), Narrowed, "allowed", "confirm_required"},
		{"ask to deny narrows", event("1", DecisionPath, "runtime_denied", decision("confirm_required")), Narrowed, "confirm_required", "runtime_denied"},
		{"another deny code changes", event("1", DecisionPath, "land_denied", decision("capability_required")), Changed, "capability_required", "land_denied"},
		{"same code unchanged", event("1", DecisionPath, "allowed", decision("allowed")), "", "", ""},
		{"allow: false to allowed widens", event("1", AllowPath, "allowed", false), Widened, "not_allow", "allowed"},
		{"allow: true to ask narrows", event("1", AllowPath, "confirm_required", true), Narrowed, "allow", "confirm_required"},
		{"allow: false to ask unchanged", event("1", AllowPath, "confirm_required", false), "", "", ""},
		{"allow: false to another deny unchanged", event("1", AllowPath, "land_denied", false), "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, candidate(nil), Options{}, tt.line)
			if r.Replayed != 1 {
				t.Fatalf("replayed %d, want 1: %s", r.Replayed, r.LastLine())
			}
			if tt.change == "" {
				if r.Unchanged != 1 || len(r.Groups) != 0 {
					t.Fatalf("want unchanged: %s %+v", r.LastLine(), r.Groups)
				}
				return
			}
			want := []Group{{PackID: "ledger", Kind: "verb", Key: "transfer", From: tt.from, To: tt.to, Change: tt.change, Count: 1, Example: "1"}}
			if !reflect.DeepEqual(r.Groups, want) {
				t.Fatalf("groups %+v, want %+v", r.Groups, want)
			}
		})
	}
}

// TestChangedRowOrPreview: the same disposition and code, but another row
// or preview, is changed; the same ones are not.
func TestChangedRowOrPreview(t *testing.T) {
	t.Parallel()
	logged := map[string]any{"allow": false, "code": "confirm_required", "source": map[string]any{"row": "p.json:7"}, "preview": map[string]any{"cli": "a --confirm"}}
	line := func(row, cli string) string {
		return fmt.Sprintf(`{"decision_id":"x","path":%q,"input":{"pack_id":"p","stimulus":"s","now":"confirm_required","row":%q,"cli":%q},"result":%s}`+"\n",
			DecisionPath, row, cli, mustJSON(logged))
	}
	r := run(t, candidate(nil), Options{}, line("p.json:7", "a --confirm")+line("p.json:8", "a --confirm")+line("p.json:7", "b --confirm"))
	if r.Unchanged != 1 || r.Changed != 2 || len(r.Groups) != 1 || r.Groups[0].Count != 2 || r.Groups[0].Kind != "stimulus" {
		t.Fatalf("%s %+v", r.LastLine(), r.Groups)
	}
}

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// TestSkipped: events that do not replay are counted by reason and never
// decided.
func TestSkipped(t *testing.T) {
	t.Parallel()
	ok := event("ok", DecisionPath, "allowed", decision("allowed"))
	log := strings.Join([]string{
		`{"level":"info","msg":"Initializing server.","time":"2026-01-01T00:00:00Z"}` + "\n",                     // other_path
		event("a", "hcp/authz/gpars_error", "allowed", nil),                                                      // other_path
		`{"decision_id":"b","path":"hcp/authz/decision","input":{"now":"allowed"},"result":"yes"}` + "\n",        // other_path: not our result
		event("c", DecisionPath, "allowed", decision("allowed"), `"error":{"code":"eval_error"}`),                // error
		event("d", DecisionPath, "allowed", decision("allowed"), `"erased":["/input/principal"]`),                // masked
		event("e", DecisionPath, "allowed", decision("allowed"), `"masked":["/input"]`),                          // masked
		`{"decision_id":"f","path":"hcp/authz/decision","result":{"code":"allowed"},"erased":["/input"]}` + "\n", // masked
		event("g", AllowPath, "allowed", true, `"masked":["/result/x"]`),                                         // replays: only /input counts
		"[1,2]\n",                       // unreadable
		`{"decision_id":"h","pa` + "\n", // unreadable: cut short
		`{"decision_id":"i","path":"hcp/authz/decision","input":{"now":"allowed","args":{"n":[1, 1e100000]}},"result":{"code":"allowed"}}` + "\n", // unreadable: OPA refuses the number
		ok,
	}, "")
	var calls atomic.Int64
	r := run(t, candidate(&calls), Options{}, log)
	want := Skipped{OtherPath: 3, Error: 1, Masked: 3, Unreadable: 3}
	if r.Skipped != want || r.Replayed != 2 {
		t.Fatalf("skipped %+v replayed %d, want %+v and 2", r.Skipped, r.Replayed, want)
	}
	if calls.Load() != 1 {
		t.Fatalf("%d decisions, want 1: a skipped event was decided", calls.Load())
	}
	wantNamed := []string{"log1:9: not a JSON object", "log1:10: not a JSON object", "log1:11: its input holds a number beyond the range of numbers OPA evaluates"}
	if !reflect.DeepEqual(r.Unreadable, wantNamed) {
		t.Fatalf("unreadable named %q, want %q", r.Unreadable, wantNamed)
	}
}

// TestUnreadableNamedAtMostTen: the first ten, in log order across logs.
func TestUnreadableNamedAtMostTen(t *testing.T) {
	t.Parallel()
	r := run(t, candidate(nil), Options{Workers: 4}, strings.Repeat("x\n", 600), "y\n")
	if r.Skipped.Unreadable != 601 || len(r.Unreadable) != MaxNamed || r.Unreadable[0] != "log1:1: not a JSON object" || r.Unreadable[9] != "log1:10: not a JSON object" {
		t.Fatalf("%d unreadable, named %q", r.Skipped.Unreadable, r.Unreadable)
	}
}

// bigLog is a log of n events over distinct inputs, whose codes
// vary so that every kind of change and many groups occur.
func bigLog(n, distinct int) string {
	codes := []string{"allowed", "confirm_required", "land_denied", "capability_required"}
	var b strings.Builder
	for i := range n {
		k := i % distinct
		input := fmt.Sprintf(`{"pack_id":"p%d","verb_key":"v%d","now":%q,"n":%d}`, k%7, k%5, codes[k%4], k)
		fmt.Fprintf(&b, `{"decision_id":"id-%d","path":%q,"input":%s,"result":{"allow":false,"code":%q}}`+"\n", i, DecisionPath, input, codes[(k/4)%4])
	}
	return b.String()
}

// TestDeterministicAndDecidedOnce: any number of workers gives the same
// report, each distinct input is decided once, and an example is its
// group's first event.
func TestDeterministicAndDecidedOnce(t *testing.T) {
	t.Parallel()
	log := bigLog(20000, 900)
	var first []byte
	for _, workers := range []int{1, 2, 3, 8} {
		var calls atomic.Int64
		r := run(t, candidate(&calls), Options{Workers: workers}, log)
		if calls.Load() != 900 || r.Decided != 900 {
			t.Fatalf("%d workers: %d decisions (reported %d), want 900", workers, calls.Load(), r.Decided)
		}
		var out bytes.Buffer
		if err := WriteJSON(&out, r); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = out.Bytes()
			continue
		}
		if !bytes.Equal(out.Bytes(), first) {
			t.Fatalf("%d workers give another report:\n%s\nthan 1 worker:\n%s", workers, out.Bytes(), first)
		}
	}
	var r jsonReport
	json.Unmarshal(first, &r)
	for _, g := range r.Groups {
		var id int
		fmt.Sscanf(g.Example, "id-%d", &id)
		if id >= 900 {
			t.Errorf("group %+v: example is not its first event", g)
		}
	}
}

// TestCacheCapped: past the cap, inputs are decided again and the report
// says so; its counts stay the same.
func TestCacheCapped(t *testing.T) {
	t.Parallel()
	log := bigLog(3000, 300)
	whole := run(t, candidate(nil), Options{}, log)
	var calls atomic.Int64
	capped := run(t, candidate(&calls), Options{MaxCached: 100}, log)
	if capped.CacheCapped != 100 || whole.CacheCapped != 0 || calls.Load() <= 300 {
		t.Fatalf("capped %d (uncapped %d), %d decisions", capped.CacheCapped, whole.CacheCapped, calls.Load())
	}
	if capped.LastLine() != whole.LastLine() || !reflect.DeepEqual(capped.Groups, whole.Groups) {
		t.Fatalf("a capped cache changed the report: %s, want %s", capped.LastLine(), whole.LastLine())
	}
	var out bytes.Buffer
	WritePretty(&out, capped)
	if !strings.Contains(out.String(), "more than 100 distinct inputs") {
		t.Fatalf("the output does not say the cache was capped:\n%s", out.String())
	}
}

// TestGroupsCapped: past MaxGroups the report lists the groups first by
// rank, widened first, each with its exact count, the same whatever the
// workers, and counts the changed decisions it does not list.
func TestGroupsCapped(t *testing.T) {
	t.Parallel()
	log := bigLog(20000, 900)
	whole := run(t, candidate(nil), Options{}, log)
	type id struct{ pack, kind, key, from, to string }
	counts := map[id]int64{}
	widened := 0
	for _, g := range whole.Groups {
		counts[id{g.PackID, g.Kind, g.Key, g.From, g.To}] = g.Count
		if g.Change == Widened {
			widened++
		}
	}
	const max = 12
	if whole.GroupsCapped != 0 || widened <= max || len(whole.Groups) <= 2*max {
		t.Fatalf("the log gives %d groups (%d widened, capped %d): the test needs more than %d widened", len(whole.Groups), widened, whole.GroupsCapped, max)
	}
	if r := run(t, candidate(nil), Options{MaxGroups: len(whole.Groups)}, log); r.GroupsCapped != 0 {
		t.Errorf("as many groups as the cap: capped %d, want 0", r.GroupsCapped)
	}
	var first []byte
	for _, workers := range []int{1, 2, 3, 8} {
		r := run(t, candidate(nil), Options{Workers: workers, MaxGroups: max}, log)
		if len(r.Groups) != max || r.GroupsCapped != max {
			t.Fatalf("%d workers: %d groups listed, capped %d; want %d", workers, len(r.Groups), r.GroupsCapped, max)
		}
		if r.Widened != whole.Widened || r.Narrowed != whole.Narrowed || r.Changed != whole.Changed {
			t.Errorf("%d workers: counts %s, want %s", workers, r.LastLine(), whole.LastLine())
		}
		unlisted := r.Widened + r.Narrowed + r.Changed
		for _, g := range r.Groups {
			if want := counts[id{g.PackID, g.Kind, g.Key, g.From, g.To}]; g.Count != want || g.Change != Widened {
				t.Errorf("%d workers: listed %+v, want a widened group counting %d", workers, g, want)
			}
			unlisted -= counts[id{g.PackID, g.Kind, g.Key, g.From, g.To}]
		}
		if r.Unlisted() != unlisted || !strings.Contains(r.GroupsNote(), fmt.Sprintf(" %d changed decisions", unlisted)) {
			t.Errorf("%d workers: %d unlisted (%q), want %d", workers, r.Unlisted(), r.GroupsNote(), unlisted)
		}
		var out bytes.Buffer
		if err := WritePretty(&out, r); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = out.Bytes()
		} else if !bytes.Equal(out.Bytes(), first) {
			t.Fatalf("%d workers give another report:\n%s\nthan 1 worker:\n%s", workers, out.Bytes(), first)
		}
	}
	if !bytes.Contains(first, []byte("note: more than 12 groups")) {
		t.Errorf("the pretty report does not say the groups are capped:\n%s", first)
	}
}

// TestGroupOrder: widened, then narrowed, then changed, then by count.
func TestGroupOrder(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	add := func(n int, now, was string) {
		for range n {
			b.WriteString(event("i", DecisionPath, now, decision(was)))
		}
	}
	add(1, "land_denied", "capability_required") // changed
	add(3, "land_denied", "allowed")             // narrowed
	add(5, "allowed", "unknown_command")         // widened
	add(2, "allowed", "confirm_required")        // widened
	add(4, "runtime_denied", "allowed")          // narrowed
	r := run(t, candidate(nil), Options{}, b.String())
	var got []string
	for _, g := range r.Groups {
		got = append(got, fmt.Sprintf("%s %d", g.Change, g.Count))
	}
	want := []string{"widened 5", "widened 2", "narrowed 4", "narrowed 3", "changed 1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order %q, want %q", got, want)
	}
	if r.LastLine() != "15 replayed: 0 unchanged, 7 narrowed, 7 widened, 1 changed; 0 skipped" {
		t.Fatalf("last line %q", r.LastLine())
	}
}

// TestEventFields: fields in any order, names with escapes, and a
// duplicate name (the last wins, as encoding/json reads it) are read as
// OPA's events are.
func TestEventFields(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"result":{"preview":{"cli":"x"},"code":"land_denied","source":{"row":"p.json:1"}},"input":{"now":"allowed"},"path":"hcp/authz/decision","decision_id":"a"}`,
		`{"decision\u005fid":"b","p\u0061th":"hcp/authz/allow","input":{"now":"allowed"},"result":false}`,
		`{"decision_id":"c","path":"other","path":"hcp/authz/decision","input":{"now":"allowed"},"result":{"code":"land_denied"}}`,
		`{"decision_id":"d","path":"hcp/authz/decision","input":{"now":"allowed"},"result":{"code":5}}`,
	}
	r := run(t, candidate(nil), Options{}, strings.Join(lines, "\n"))
	if r.Widened != 3 || r.Skipped.OtherPath != 1 {
		t.Fatalf("%s %+v", r.LastLine(), r.Skipped)
	}
	if g := r.Groups[0]; g.From != "land_denied" || g.Count != 2 || g.Example != "a" {
		t.Fatalf("groups %+v", r.Groups)
	}
}

// TestSameInputWrittenOtherwiseDecidedOnce: inputs that differ only in how
// they are written (member order, spaces, a string's escapes) are one
// input, decided once; a number written otherwise is another input, since
// its text can change a decision (a preview keeps it).
func TestSameInputWrittenOtherwiseDecidedOnce(t *testing.T) {
	t.Parallel()
	line := func(id, input string) string {
		return fmt.Sprintf(`{"decision_id":%q,"path":"hcp/authz/decision","input":%s,"result":{"allow":true,"code":"allowed"}}`+"\n", id, input)
	}
	log := line("a", `{"now":"allowed","pack_id":"ledger","verb_key":"transfer","args":{"n":"x/y"}}`) +
		line("b", `{ "args": {"n": "x\/y"}, "verb_key": "transfer", "pack_id": "l\u0065dger", "now": "allowed" }`) +
		line("c", `{"now":"allowed","pack_id":"ledger","verb_key":"transfer","args":{"n":1.0}}`) +
		line("d", `{"now":"allowed","pack_id":"ledger","verb_key":"transfer","args":{"n":1}}`)
	var calls atomic.Int64
	r := run(t, candidate(&calls), Options{}, log)
	if calls.Load() != 3 || r.Decided != 3 {
		t.Errorf("%d decisions (reported %d), want 3: a and b are one input, c and d two", calls.Load(), r.Decided)
	}
}

// TestLongFieldsKeptShort: a log of 600 events, each with a distinct
// 100 KB verb_key, logged code or decision_id, keeps a short text of each
// (its head, length and sha256) in the groups and the cache, so the report
// holds far less than the 60 MB the texts take; distinct keys and codes
// stay 600 groups.
func TestLongFieldsKeptShort(t *testing.T) {
	const line = `{"decision_id":%q,"path":"hcp/authz/decision","input":{"now":"unknown_command","pack_id":"ledger","verb_key":%q},"result":{"allow":true,"code":%q}}` + "\n"
	for _, tt := range []struct {
		name       string
		fields     func(long string) (id, key, code string)
		wantGroups int
	}{
		{"verb_key", func(long string) (string, string, string) { return long[:6], long, "allowed" }, 600},
		{"logged code", func(long string) (string, string, string) { return long[:6], "transfer", long }, 600},
		{"decision_id", func(long string) (string, string, string) { return long, "transfer", "allowed" }, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var log strings.Builder
			for i := range 600 {
				id, key, code := tt.fields(fmt.Sprintf("%06d%s", i, strings.Repeat("k", 100<<10)))
				fmt.Fprintf(&log, line, id, key, code)
			}
			r := run(t, candidate(nil), Options{}, log.String())
			log.Reset()
			runtime.GC()
			runtime.ReadMemStats(&after)
			if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > 16<<20 {
				t.Errorf("the report of 600 events with a 100 KB %s holds %d MiB, more than 16", tt.name, held>>20)
			}
			if len(r.Groups) != tt.wantGroups {
				t.Errorf("%d groups, want %d: texts kept short must stay distinct", len(r.Groups), tt.wantGroups)
			}
			for _, g := range r.Groups {
				if longest := max(len(g.Key), len(g.From), len(g.Example)); longest > 2*keptLen {
					t.Fatalf("a group keeps a text of %d bytes", longest)
				}
			}
			// The example is the first event's id kept once: its length and
			// sha256 are the id's, not those of its short form kept again.
			if first, _, _ := tt.fields(fmt.Sprintf("%06d%s", 0, strings.Repeat("k", 100<<10))); len(first) > keptLen && r.Groups[0].Example != kept(first) {
				t.Errorf("example %q, want %q", r.Groups[0].Example, kept(first))
			}
			runtime.KeepAlive(r)
		})
	}
}

// TestKeptShortFormsStayDistinct: a text written in a log as another
// text's short form is not taken for that text, so a forged log cannot
// make two keys one group, nor a changed row read as unchanged.
func TestKeptShortFormsStayDistinct(t *testing.T) {
	long := strings.Repeat("k", 1000)
	short := kept(long)
	if kept(short) == short || kept(short) == kept(long) {
		t.Fatalf("the short form %q is kept as itself or as the long text", short)
	}
	const line = `{"decision_id":%q,"path":"hcp/authz/decision","input":{"now":"unknown_command","pack_id":"ledger","verb_key":%q,"row":%q},"result":{"allow":false,"code":%q,"source":{"row":%q}}}` + "\n"
	log := fmt.Sprintf(line, "a", long, "r", "allowed", "r") + fmt.Sprintf(line, "b", short, "r", "allowed", "r") +
		// The logged row is the candidate's row as its short form reads.
		fmt.Sprintf(line, "c", "transfer", long, "unknown_command", kept("s:" + long)[2:])
	r := run(t, candidate(nil), Options{}, log)
	if r.Narrowed != 2 || r.Changed != 1 || len(r.Groups) != 3 {
		t.Errorf("%s, groups %+v; want a and b narrowed in a group each, and the row of c changed", r.LastLine(), r.Groups)
	}
}

// TestDefaultWorkersBounded: the default number of workers, each holding
// an event of up to 1 MiB as it decides it, does not grow with the cores.
func TestDefaultWorkersBounded(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(64))
	if w := (Options{}).withDefaults().Workers; w != MaxWorkers {
		t.Errorf("%d workers on 64 cores, want %d", w, MaxWorkers)
	}
	runtime.GOMAXPROCS(1)
	if w := (Options{}).withDefaults().Workers; w != 1 {
		t.Errorf("%d workers on 1 core, want 1", w)
	}
}
