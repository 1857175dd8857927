package replay

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"
)

// readAll reads every record of log, with texts copied.
func readAll(t *testing.T, log []byte, max int) []Record {
	t.Helper()
	r, err := NewReader(bytes.NewReader(log), max)
	if err != nil {
		t.Fatal(err)
	}
	var out []Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		rec.Text = bytes.Clone(rec.Text)
		out = append(out, rec)
	}
}

type wantRecord struct {
	line    int
	text    string
	problem string // a part of the problem, "" when none
}

func TestReaderForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		log  string
		max  int
		want []wantRecord
	}{
		{"console lines", "{\"a\":1}\n\n  {\"b\":2}  \r\n{\"c\":", 0,
			[]wantRecord{{1, `{"a":1}`, ""}, {3, `{"b":2}`, ""}, {4, `{"c":`, ""}}},
		{"server log lines among events", "{\"level\":\"info\",\"msg\":\"Initializing server.\"}\nnot json\n", 0,
			[]wantRecord{{1, `{"level":"info","msg":"Initializing server."}`, ""}, {2, "not json", ""}}},
		{"array", "[\n {\"a\": [1, \"],\\\"\"]},\n {\"b\": {\"c\": \"}\"}}\n]\n", 0,
			[]wantRecord{{2, `{"a": [1, "],\""]}`, ""}, {3, `{"b": {"c": "}"}}`, ""}}},
		{"empty array", " [ ] ", 0, nil},
		{"arrays one after another", "[{\"a\":1}][{\"b\":2}]\n", 0,
			[]wantRecord{{1, `{"a":1}`, ""}, {1, `{"b":2}`, ""}}},
		{"array element not an object", "[1, \"x\"]", 0,
			[]wantRecord{{1, "1", ""}, {1, `"x"`, ""}}},
		{"empty element", "[{\"a\":1},,]", 0,
			[]wantRecord{{1, `{"a":1}`, ""}, {1, "", "empty"}, {1, "", "empty"}}},
		{"line too long", "{\"a\":\"0123456789\"}\n{}\n", 10,
			[]wantRecord{{1, "", "longer than 10 bytes"}, {2, "{}", ""}}},
		{"line at the limit", "{\"a\":\"01\"}\n", 10,
			[]wantRecord{{1, `{"a":"01"}`, ""}}},
		{"element too long", "[{\"a\":\"0123456789\"}, {}]", 10,
			[]wantRecord{{1, "", "longer than 10 bytes"}, {1, "{}", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := readAll(t, []byte(tt.log), tt.max)
			if len(got) != len(tt.want) {
				t.Fatalf("%d records, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Line != w.line || string(g.Text) != w.text || !strings.Contains(g.Problem, w.problem) || (w.problem == "") != (g.Problem == "") {
					t.Errorf("record %d: line %d text %q problem %q, want line %d text %q problem %q", i, g.Line, g.Text, g.Problem, w.line, w.text, w.problem)
				}
			}
			checkAccounted(t, []byte(tt.log), got)
		})
	}
}

// checkAccounted holds the records to the log they came from: each
// readable record is the log's bytes at its offset, on its line, and
// every byte outside a record is whitespace or an array's brackets and
// commas.
func checkAccounted(t *testing.T, log []byte, records []Record) {
	t.Helper()
	var next int64
	for i, rec := range records {
		if rec.Offset < next || rec.Offset+rec.Len > int64(len(log)) {
			t.Fatalf("record %d at %d+%d overlaps or overruns (next free byte %d, log %d bytes)", i, rec.Offset, rec.Len, next, len(log))
		}
		if line := bytes.Count(log[:rec.Offset], []byte("\n")) + 1; line != rec.Line {
			t.Errorf("record %d at %d: line %d, want %d", i, rec.Offset, rec.Line, line)
		}
		if rec.Problem == "" && !bytes.Equal(log[rec.Offset:rec.Offset+rec.Len], rec.Text) {
			t.Errorf("record %d: text %q, but the log has %q there", i, rec.Text, log[rec.Offset:rec.Offset+rec.Len])
		}
		checkFraming(t, log[next:rec.Offset])
		next = rec.Offset + rec.Len
	}
	checkFraming(t, log[next:])
}

func checkFraming(t *testing.T, gap []byte) {
	t.Helper()
	if strings.Trim(string(gap), " \t\r\n[],") != "" {
		t.Errorf("bytes %q belong to no record", gap)
	}
}

func TestReaderGzip(t *testing.T) {
	t.Parallel()
	plain := "[{\"a\":1},\n{\"b\":2}]"
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(plain))
	zw.Close()
	got := readAll(t, z.Bytes(), 0)
	if len(got) != 2 || string(got[1].Text) != `{"b":2}` || got[1].Line != 2 {
		t.Fatalf("gzip'd array read as %+v", got)
	}
	// A broken gzip stream is an error reading the log, not a record.
	broken := z.Bytes()[:z.Len()-6]
	r, err := NewReader(bytes.NewReader(broken), 0)
	if err != nil {
		t.Fatal(err)
	}
	for {
		_, err = r.Next()
		if err != nil {
			break
		}
	}
	if errors.Is(err, io.EOF) {
		t.Fatal("a gzip stream cut short read to its end without an error")
	}
}

// TestReaderBrokenArrays: arrays that break off, or text after them, end
// the reading with an error after the records before the break, never
// one unreadable record to the end of the log. A console log cut in the
// middle of a line that holds "[" must not hide its events.
func TestReaderBrokenArrays(t *testing.T) {
	t.Parallel()
	events := strings.Repeat(`{"decision_id":"d","path":"hcp/authz/decision"}`+"\n", 3)
	tests := []struct {
		name, log string
		records   int
		problem   string
	}{
		{"array cut short", "[{\"a\":1},\n{\"b\":", 1, "its element from line 2 is not complete"},
		{"array cut after a comma", "[{\"a\":1},\n", 1, "cut short after a comma"},
		{"array not closed", "[\n", 0, "not closed"},
		{"text after the array", "[{\"a\":1}]\n{\"b\":2}\n", 1, "text after the array"},
		{"console log cut inside a line", `["member"]},"pack_id":"mail"}` + "\n" + events, 1, "text after the array"},
		{"first line not JSON", "[not json\n" + events, 0, "is not complete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := NewReader(strings.NewReader(tt.log), 0)
			if err != nil {
				t.Fatal(err)
			}
			records := 0
			for {
				_, err = r.Next()
				if err != nil {
					break
				}
				records++
			}
			if errors.Is(err, io.EOF) || !strings.Contains(err.Error(), tt.problem) {
				t.Fatalf("read to %v, want an error that says %q", err, tt.problem)
			}
			if records != tt.records {
				t.Errorf("%d records before the error, want %d", records, tt.records)
			}
		})
	}
}
