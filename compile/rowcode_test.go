package compile_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
)

// checkRoundTrip decodes a row's packed form and holds each field to the
// row it came from.
func checkRoundTrip(t *testing.T, r *compile.Row) {
	t.Helper()
	text := compile.EncodeRow(r)
	got, err := compile.DecodeRow(text)
	if err != nil {
		t.Fatalf("DecodeRow(%q): %v", text, err)
	}
	want := compile.PackedRow{Operation: r.Operation, Land: r.Land, Gate: map[compile.Gate]string{compile.NoGate: "false", compile.GateTrue: "true", compile.GateAlways: "always"}[r.Gate], Capability: r.Capability(), Line: r.Line}
	if got.Template != "" {
		// The template is in the row only when a string holds it whole.
		want.Template = strings.Join(r.CLI, " ")
	}
	if preview, ok := compile.PreviewText(r); ok {
		lines := strings.Split(preview, "\n")
		want.Format, want.Names, want.Template = lines[0], lines[1:], strings.Join(r.CLI, " ")
	}
	if got.Operation != want.Operation || got.Land != want.Land || got.Gate != want.Gate || got.Capability != want.Capability || got.Line != want.Line ||
		got.Template != want.Template || got.Format != want.Format || !slices.Equal(got.Names, want.Names) {
		t.Errorf("row %q:\n decoded %+v\n want    %+v", text, got, want)
	}
}

// TestRowRoundTrip decodes every row of the example packs as it was
// encoded.
func TestRowRoundTrip(t *testing.T) {
	m := exampleModel(t)
	for _, p := range m.Packs() {
		for _, k := range []compile.Kind{compile.Verb, compile.Stimulus} {
			for _, r := range p.Rows(k) {
				checkRoundTrip(t, r)
			}
		}
	}
}

// FuzzRowCode encodes rows of any template and decodes them back.
func FuzzRowCode(f *testing.F) {
	f.Add(uint8(1), uint8(0), uint8(1), false, 5, "ledger\x00transfer\x00{amount}\x00--to\x00{payee}\x00--confirm")
	f.Add(uint8(0), uint8(2), uint8(0), false, 1, "")
	f.Add(uint8(1), uint8(1), uint8(2), true, 1<<20, "x\x00a b\x00{c}\x00\x00--apply")
	f.Add(uint8(1), uint8(1), uint8(1), false, 9, "ws\x00{p}%s\x00{a | b}\x00 | \x00{q}")
	f.Fuzz(func(t *testing.T, op, land, gate uint8, connect bool, line int, cli string) {
		r := &compile.Row{
			Kind:      compile.Verb,
			Operation: []string{"read", "write"}[op%2],
			Land:      []string{"personal", "brain", "local"}[land%3],
			Gate:      compile.Gate(gate % 3),
			Connect:   connect,
			Line:      max(line, 0) % math.MaxInt32,
		}
		if cli != "" {
			r.CLI = strings.Split(cli, "\x00")
		}
		checkRoundTrip(t, r)
	})
}

// TestPositionRoundTrip decodes grant positions, the largest line too.
func TestPositionRoundTrip(t *testing.T) {
	for _, p := range [][2]int{{0, 1}, {1, 5}, {7, 1<<32 - 1}, {1 << 20, 3}} {
		if file, line := compile.DecodePosition(compile.EncodePosition(p[0], p[1])); file != p[0] || line != p[1] {
			t.Errorf("position of file %d line %d decodes to file %d line %d", p[0], p[1], file, line)
		}
	}
	if compile.EncodePosition(0, 1<<32-1) >= compile.EncodePosition(1, 1) {
		t.Error("a grant in the first file must come before any in the second")
	}
}

// TestPackRowsGolden shows, beside each pack module's golden file, its
// rows decoded (testdata/golden/packs/<id>.rows.json), so that a golden
// diff reads field by field. Run `go test ./compile -update` to rewrite.
func TestPackRowsGolden(t *testing.T) {
	m := exampleModel(t)
	for _, p := range m.Packs() {
		view := map[string]map[string]compile.PackedRow{}
		for _, k := range []compile.Kind{compile.Verb, compile.Stimulus} {
			rows := map[string]compile.PackedRow{}
			for key, r := range p.Rows(k) {
				d, err := compile.DecodeRow(compile.EncodeRow(r))
				if err != nil {
					t.Fatal(err)
				}
				rows[key] = d
			}
			view[k.Field()] = rows
		}
		got, _ := json.MarshalIndent(view, "", "  ")
		got = append(got, '\n')
		golden := filepath.Join("testdata/golden/packs", p.ID+".rows.json")
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run: go test ./compile -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs:\n%s\nrun: go test ./compile -update, and review the diff", golden, lineDiff(want, got))
		}
	}
}
