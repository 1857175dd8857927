package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/document"
)

// itemsOf validates a streamed grant file with Items, as compile reads
// one, and returns what it found: the parse's problem or the schema's.
func itemsOf(t testing.TB, file, doc string) error {
	t.Helper()
	it := &itemSink{items: Get("grants").Items(file, "grants")}
	root, err := document.ParseJSONStream(file, []byte(doc), nil, "grants", it)
	if err != nil {
		return err
	}
	if it.next != it.seen {
		t.Fatalf("%s: elements came as %d of %d", file, it.seen, it.next)
	}
	return it.items.Validate(root)
}

// itemSink checks each element as it comes.
type itemSink struct {
	items      *Items
	next, seen int
}

func (s *itemSink) Item(i int, n *document.Node) {
	if i == s.next {
		s.seen++
	}
	s.next++
	s.items.Check(i, n)
}

func (s *itemSink) Restart() {
	s.items = Get("grants").Items(s.items.file, "grants")
	s.next, s.seen = 0, 0
}

// wholeOf validates the whole tree of a grant file, as a file was read
// before grants were streamed.
func wholeOf(file, doc string) error {
	root, err := document.ParseJSON(file, []byte(doc), nil)
	if err != nil {
		return err
	}
	return Get("grants").Validate(file, root)
}

// manyBad is n grants that are numbers, on one line.
func manyBad(n int) string { return strings.TrimSuffix(strings.Repeat("0,", n), ",") }

// TestItemsAgreeWithValidate validates grant files element by element
// and whole: the same problems, worded alike at the same positions, the
// same first MaxProblems listed and the same count of the rest, also
// where the top level's problems stand before, among and after the
// grants'.
func TestItemsAgreeWithValidate(t *testing.T) {
	good := `{"subject": "role:a", "pack_id": "p", "capabilities": ["verb.exec.read"]}`
	docs := map[string]string{
		"good":         `{"version": 1, "grants": [` + good + `,` + good + `]}`,
		"empty":        `{"grants": []}`,
		"bad grants":   `{"grants": [` + good + `, {"subject": "x", "pack_id": "", "capabilities": ["nope", "nope"], "verb_key": "v", "stimulus": "s", "a b": 1, "": 2}, 0, "s", null, []]}`,
		"top before":   `{"version": 2, "zz": 1, "grants": [{"subject": "role:a"}]}`,
		"top after":    `{"grants": [{"subject": "role:a"}], "version": "1", "a\"b": {}}`,
		"no grants":    `{"version": 1}`,
		"not an array": `{"grants": {"subject": "role:a"}}`,
		"not object":   `[` + good + `]`,
		"nested":       `{"grants": [{"subject": "role:a", "pack_id": "p", "capabilities": [["verb.exec.read"], {"": []}]}]}`,
		"many":         `{"grants": [` + manyBad(1500) + `]}`,
		"many before":  `{"version": 0, "x": 1, "grants": [` + manyBad(1200) + `]}`,
		"many after":   `{"grants": [` + manyBad(999) + `, {}], "version": 0, "x": 1}`,
		"at the edge":  `{"grants": [` + manyBad(998) + `], "version": 0, "x": 1}`,
		"missing ones": `{"grants": [` + strings.Repeat(`{}, `, 400) + `{}], "version": 0}`,
		"syntax":       `{"grants": [` + good + `, {"subject": }]}`,
		"duplicate":    `{"grants": [` + good + `], "grants": []}`,
		"lone escape":  `{"grants": [{"subject": "role:\ud800", "pack_id": "p", "capabilities": ["verb.exec.read"]}]}`,
	}
	for _, path := range []string{"../../testdata/grants/acme.json", "../../testdata/grants/defaults.json"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(path)] = string(data)
	}
	for name, doc := range docs {
		whole, streamed := fmt.Sprint(wholeOf("g.json", doc)), fmt.Sprint(itemsOf(t, "g.json", doc))
		if whole != streamed {
			t.Errorf("%s: element by element\n%.2000s\nwhole\n%.2000s", name, streamed, whole)
		}
	}
}

// FuzzItemsAgree holds Items to Validate on any grant file.
func FuzzItemsAgree(f *testing.F) {
	for _, s := range []string{
		`{"grants": [{"subject": "role:a", "pack_id": "p", "capabilities": ["verb.exec.read"]}]}`,
		`{"version": 2, "grants": [0, {}, {"subject": "x", "": 1}], "a": 1}`,
		`{"grants": {}}`, `[]`, `{"grants": [[], {"capabilities": [1, 1]}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if whole, streamed := fmt.Sprint(wholeOf("g.json", doc)), fmt.Sprint(itemsOf(t, "g.json", doc)); whole != streamed {
			t.Fatalf("element by element\n%s\nwhole\n%s", streamed, whole)
		}
	})
}

// TestItemsSchemas holds the streamed arrays to what Items can check
// element by element: a schema with no keyword of the array's own
// besides its type and items, which would see the array empty.
func TestItemsSchemas(t *testing.T) {
	props := Get("grants").doc["properties"].(map[string]any)
	for key := range props["grants"].(map[string]any) {
		if key != "type" && key != "items" {
			t.Errorf("grants has keyword %q, which Items would check on an empty array", key)
		}
	}
}
