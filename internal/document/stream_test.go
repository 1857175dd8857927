package document

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// collected keeps copies of the elements a stream hands on: the parse
// reads the next element into the same nodes.
type collected struct {
	items    []*Node
	restarts int
}

func (c *collected) Item(i int, n *Node) {
	if i != len(c.items) {
		panic(fmt.Sprintf("element %d after %d", i, len(c.items)))
	}
	c.items = append(c.items, deepCopy(n))
}

// deepCopy copies n and every node under it.
func deepCopy(n *Node) *Node {
	c := *n
	c.Items = nil
	for _, item := range n.Items {
		c.Items = append(c.Items, deepCopy(item))
	}
	if n.fields != nil {
		c.fields = map[string]*Node{}
		for _, item := range c.Items {
			c.fields[item.Key] = item
		}
	}
	return &c
}

func (c *collected) Restart() { c.items, c.restarts = nil, c.restarts+1 }

// TestParseJSONStreamAgrees streams the grants of files the quick reader
// reads and files only the walk reads: the elements handed on are the
// whole tree's, at the same positions, and the tree returned is the
// whole tree with the array empty. A file the walk refuses is refused
// alike.
func TestParseJSONStreamAgrees(t *testing.T) {
	for name, doc := range map[string]string{
		"quick":        `{"version": 1, "grants": [{"a": [1, {"b": null}]}, 2, "x"], "z": {"grants": [1]}}`,
		"lone escape":  "{\"grants\": [\"\\ud800\", {\"k\": true}]}",
		"not an array": `{"grants": {"a": 1}}`,
		"no grants":    `[{"grants": [1]}]`,
		"nested":       `{"x": {"grants": [1, 2]}, "grants": [[[]]]}`,
		"crlf":         "{\r\n\"grants\": [\r\n1,\r\n\"a\"\r\n]\r\n}",
		"syntax":       `{"grants": [1, 2,]}`,
		"duplicate":    `{"grants": [1], "grants": [2]}`,
	} {
		whole, wholeErr := ParseJSON("f.json", []byte(doc), nil)
		c := &collected{}
		root, err := ParseJSONStream("f.json", []byte(doc), nil, "grants", c)
		if fmt.Sprint(err) != fmt.Sprint(wholeErr) {
			t.Errorf("%s: streamed %v, whole %v", name, err, wholeErr)
			continue
		}
		if err != nil {
			continue
		}
		if g := whole.Field("grants"); g != nil && g.Kind == Array {
			if !reflect.DeepEqual(c.items, g.Items) && (len(c.items) > 0 || len(g.Items) > 0) {
				t.Errorf("%s: streamed elements differ from the tree's", name)
			}
			g.Items = nil
		} else if len(c.items) > 0 {
			t.Errorf("%s: %d elements streamed from no array", name, len(c.items))
		}
		if !reflect.DeepEqual(root, whole) {
			t.Errorf("%s: the streamed tree differs from the whole tree without its elements", name)
		}
	}
}

// TestStreamFileValueLimit holds one file's limit of values to what a
// stream holds at once: the values outside the array and one element's.
// A file of many elements each under the limit is read; an element past
// it is refused at its value past it.
func TestStreamFileValueLimit(t *testing.T) {
	const limit = 50
	item := "[" + strings.TrimSuffix(strings.Repeat("0,", limit-4), ",") + "]" // limit-3 values
	doc := `{"v": 1, "grants": [` + strings.TrimSuffix(strings.Repeat(item+",", 100), ",") + "]}"
	b := NewBudgetOf(Limits{JSON: 1 << 40, File: limit, YAML: 1, Aliases: 1})
	if _, err := ParseJSONStream("f.json", []byte(doc), b, "grants", &collected{}); err != nil {
		t.Fatalf("100 elements of %d values each, %d with the rest: %v", limit-3, limit, err)
	}
	big := `{"v": 1, "grants": [[` + strings.Repeat("0,", limit-4) + "0]]}" // limit-2 values
	_, err := ParseJSONStream("f.json", []byte(big), b, "grants", &collected{})
	want := fmt.Sprintf("f.json:1:%d: more values than the limit of %d for one JSON file", strings.LastIndex(big, "0")+1, limit)
	if err == nil || err.Error() != want {
		t.Fatalf("an element one value past the file's limit:\n got %v\nwant %s", err, want)
	}
}

// TestHeldValueLimit holds the run's limit of values held in trees: the
// elements of a streamed array are not held, every other value is, and
// the refusal names the run's hint once.
func TestHeldValueLimit(t *testing.T) {
	limits := Limits{JSON: 1 << 40, Held: 6, File: 1 << 40, YAML: 1, Aliases: 1, Hint: "--flag raises it"}
	doc := []byte(`{"grants": [` + strings.TrimSuffix(strings.Repeat("[0, 0],", 1000), ",") + `], "a": [1, 2, 3]}`) // 6 held
	if _, err := ParseJSONStream("f.json", doc, NewBudgetOf(limits), "grants", &collected{}); err != nil {
		t.Fatalf("6 values held: %v", err)
	}
	_, err := ParseJSONStream("g.json", []byte(`{"grants": [], "a": [1, 2, 3, 4]}`), NewBudgetOf(limits), "grants", &collected{})
	want := `g.json:1:31: more values than the limit of 6 held parsed for one run (a pack's files, a grant file but its grants); --flag raises it`
	if err == nil || err.Error() != want {
		t.Fatalf("7 values held:\n got %v\nwant %s", err, want)
	}
}

// liveAtEnd is an Items that measures the live heap when the last
// element comes.
type liveAtEnd struct {
	last int
	live uint64
}

func (l *liveAtEnd) Item(i int, n *Node) {
	if i == l.last {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		l.live = m.HeapAlloc
	}
}

func (l *liveAtEnd) Restart() {}

// TestStreamHoldsOneElement streams arrays of N and 2N grants: when the
// last comes, the parse holds what it held at N, beside the file's
// bytes, not a tree of the elements before it (a tree of 20,000 grants
// is some 20 MB).
func TestStreamHoldsOneElement(t *testing.T) {
	grant := `{"subject": "principal:u0000001", "tenant": "t00001", "pack_id": "pack-0001", "verb_key": "op01.run", "capabilities": ["verb.exec.write"]}`
	held := func(n int) float64 {
		data := []byte(`{"version": 1, "grants": [` + strings.TrimSuffix(strings.Repeat(grant+",\n", n), ",\n") + "]}")
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		l := &liveAtEnd{last: n - 1}
		if _, err := ParseJSONStream("g.json", data, NewBudget(), "grants", l); err != nil {
			t.Fatal(err)
		}
		runtime.KeepAlive(data)
		return float64(l.live) - float64(before.HeapAlloc)
	}
	const n = 20_000
	heldN, held2N := held(n), held(2*n)
	t.Logf("held beside the file's bytes: %.0f bytes for %d grants, %.0f for %d", heldN, n, held2N, 2*n)
	if held2N-heldN > 64<<10 {
		t.Errorf("%d more grants held %.0f more bytes: want the same, one grant's", n, held2N-heldN)
	}
}
