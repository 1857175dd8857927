package replay

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"testing"
)

// fuzzMax is the record limit under fuzzing, small so that the fuzzer
// reaches it.
const fuzzMax = 64

// FuzzReader reads any bytes as a log: it never panics, and every byte is
// accounted for, as a record (which Classify then reads as an event or as
// unreadable) or as the whitespace and brackets between records, unless
// the log's arrays break off (ErrBrokenArray, only in a log that begins
// with one); and a replay counts each record once, replayed or skipped.
func FuzzReader(f *testing.F) {
	seeds := []string{
		"",
		"{}\n",
		`{"level":"info","msg":"Decision Log","decision_id":"1","path":"hcp/authz/decision","input":{"pack_id":"p","verb_key":"v"},"result":{"allow":true,"code":"allowed"}}` + "\n",
		`[{"decision_id":"1","path":"hcp/authz/allow","input":{},"result":false},{"decision_id":"2"}]`,
		"[{\"a\": \"],\\\"\"}, 1,, {\"b\":[{}]}]\n[]x",
		"{\"a\":1}\r\n\n{\"a\":\n[",
		`{"decision_id":"m","path":"hcp/authz/decision","input":{},"result":{"code":"x"},"erased":["/input/a"]}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(seeds[3]))
	zw.Close()
	f.Add(z.Bytes())
	f.Fuzz(func(t *testing.T, log []byte) {
		records, readErr := readFuzz(log)
		gzipped := len(log) >= 2 && log[0] == 0x1f && log[1] == 0x8b
		array := len(bytes.TrimLeft(log, " \t\r\n")) > 0 && bytes.TrimLeft(log, " \t\r\n")[0] == '['
		switch {
		case gzipped:
		case readErr == nil:
			checkAccounted(t, log, records)
		case !errors.Is(readErr, ErrBrokenArray) || !array:
			t.Fatalf("plain bytes gave a read error: %v", readErr)
		}
		for _, rec := range records {
			if rec.Problem == "" {
				if ev, reason := Classify(rec.Text); (ev != nil) != (reason == Replays) {
					t.Fatalf("%q: event %v with reason %d", rec.Text, ev, reason)
				}
			}
		}
		r, err := Run(context.Background(), candidate(nil), []Log{{Name: "fuzz", Reader: bytes.NewReader(log)}}, Options{MaxRecordBytes: fuzzMax, Workers: 2})
		if err != nil {
			if readErr == nil {
				t.Fatalf("a log read whole failed to replay: %v", err)
			}
			return
		}
		if got := r.Replayed + r.Skipped.Total(); got != int64(len(records)) {
			t.Fatalf("%d records, but %d replayed and %d skipped", len(records), r.Replayed, r.Skipped.Total())
		}
	})
}

// readFuzz reads every record of log under the fuzzing limit.
func readFuzz(log []byte) ([]Record, error) {
	r, err := NewReader(bytes.NewReader(log), fuzzMax)
	if err != nil {
		return nil, err
	}
	var out []Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		rec.Text = bytes.Clone(rec.Text)
		out = append(out, rec)
	}
}
