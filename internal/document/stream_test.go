package document

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
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

// readBoth reads the file at path as a stream and whole, each with a
// budget of limits, and returns what each gave, written out.
func readBoth(t testing.TB, path string, limits Limits) (streamed, whole string) {
	t.Helper()
	show := func(root *Node, items []*Node, sum [32]byte, err error, b *Budget) string {
		var out strings.Builder
		fmt.Fprintf(&out, "%v\nsha256 %x\nleft %d %d %d refused %v\n", err, sum, b.json.left.Load(), b.trees.left.Load(), b.bytes.left, b.Refused())
		writeTree(&out, root, "")
		for _, item := range items {
			writeTree(&out, item, "- ")
		}
		return out.String()
	}
	c, b := &collected{}, NewBudgetOf(limits)
	root, sum, err := ReadJSONStream(path, b, "grants", c)
	streamed = show(root, c.items, sum, err, b)
	c, b = &collected{}, NewBudgetOf(limits)
	data, err := ReadSource(path, b, 0)
	sum = [32]byte{}
	if err == nil {
		root, err = ParseJSONStream(path, data, b, "grants", c)
		sum = sha256.Sum256(data)
	}
	if err != nil {
		sum = [32]byte{}
	}
	return streamed, show(root, c.items, sum, err, b)
}

// writeTree writes n and what it holds, one value a line.
func writeTree(w *strings.Builder, n *Node, indent string) {
	if n == nil {
		w.WriteString(indent + "nil\n")
		return
	}
	fmt.Fprintf(w, "%s%v %q@%v %v %q %v\n", indent, n.Kind, n.Key, n.KeyPos, n.Pos, n.Text, n.Bool)
	for _, item := range n.Items {
		writeTree(w, item, indent+"  ")
	}
}

// TestReadJSONStreamAgrees reads files as streams and whole: the same
// tree, elements, sha256, problems at the same positions, and the same
// bytes and values taken from the run's budget, whatever the file holds
// and wherever the run's limit of bytes falls.
func TestReadJSONStreamAgrees(t *testing.T) {
	long := strings.Repeat("x", MaxStringBytes+1)
	docs := map[string]string{
		"grants":         `{"version": 1, "grants": [{"subject": "role:a", "pack_id": "p", "capabilities": ["verb.exec.read"]}, 2, "é\u00e9"]}`,
		"crlf":           "{\r\n\"grants\": [\r\n1,\r\n\"a\"\r\n]\r\n}\r\n",
		"cr":             "{\r\"grants\": [\r1,\r\"a\"\r]\r}",
		"syntax late":    `{"grants": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10,]}`,
		"duplicate":      `{"grants": [1], "grants": [2]}`,
		"bom":            "\uFEFF{\"grants\": []}",
		"empty":          " \n ",
		"bad utf-8":      "{\"grants\": [\"a\xff\"]}",
		"lone escape":    `{"grants": ["\ud800", 1]}`,
		"trailing":       `{"grants": []} x`,
		"two values":     `{"grants": []} {}`,
		"long string":    `{"grants": ["` + long + `"]}`,
		"long escapes":   `{"grants": ["` + strings.Repeat(`\u0041`, MaxStringBytes/4) + `"]}`,
		"spaces":         `{"grants": [1,` + strings.Repeat(" ", maxWindow+10) + `2]}`,
		"deep":           `{"grants": [` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `]}`,
		"many":           `{"grants": [` + strings.TrimSuffix(strings.Repeat(`{"a": [1, 2]},`+"\n", 20_000), ",\n") + `]}`,
		"bad utf-8 late": "{\"grants\": [0, 0, 0, 0, 0, 0, 0, \"a\xff\"]}",
		"utf-8 late":     "{\"grants\": [0, 0, 0, 0, 0, 0, 0, \"\u00e9\U0001F600\"]}\r\n",
	}
	dir := t.TempDir()
	for name, doc := range docs {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		limits := []int64{0, 1, 13, int64(len(doc) / 2), int64(len(doc) - 1), int64(len(doc))}
		if len(doc) > 1<<16 {
			limits = []int64{0, int64(len(doc) - 1)}
		}
		for _, bytes := range limits {
			for _, values := range []int64{1 << 40, 5} {
				l := Limits{JSON: values, File: 1 << 20, YAML: 1, Aliases: 1, Held: 1 << 40, Bytes: bytes, Hint: "raise it"}
				streamed, whole := readBoth(t, path, l)
				if streamed != whole {
					t.Errorf("%s, %d bytes, %d values: as a stream\n%.1500s\nwhole\n%.1500s", name, bytes, values, streamed, whole)
				}
			}
		}
	}
}

// TestReadJSONStreamHoldsNoFile reads files of N and 2N grants as
// streams: when the last grant comes, the read holds neither the file
// nor the grants before it.
func TestReadJSONStreamHoldsNoFile(t *testing.T) {
	grant := `{"subject": "principal:u0000001", "tenant": "t00001", "pack_id": "pack-0001", "verb_key": "op01.run", "capabilities": ["verb.exec.write"]}`
	dir := t.TempDir()
	held := func(n int) float64 {
		path := filepath.Join(dir, fmt.Sprintf("g%d.json", n))
		if err := os.WriteFile(path, []byte(`{"version": 1, "grants": [`+strings.TrimSuffix(strings.Repeat(grant+",\n", n), ",\n")+"]}"), 0o644); err != nil {
			t.Fatal(err)
		}
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		l := &liveAtEnd{last: n - 1}
		if _, _, err := ReadJSONStream(path, NewBudget(), "grants", l); err != nil {
			t.Fatal(err)
		}
		return float64(l.live) - float64(before.HeapAlloc)
	}
	const n = 20_000 // 2.7 MB
	heldN, held2N := held(n), held(2*n)
	t.Logf("held: %.0f bytes for %d grants, %.0f for %d", heldN, n, held2N, 2*n)
	if held2N > 256<<10 || held2N-heldN > 64<<10 {
		t.Errorf("held %.0f bytes at %d grants, %.0f at %d: want what one grant takes, under 256 KiB", heldN, n, held2N, 2*n)
	}
}

// FuzzReadJSONStream holds a stream to the whole file on any text and
// any limit of bytes and of values.
func FuzzReadJSONStream(f *testing.F) {
	for _, s := range []string{`{"grants": [1, {"a": "b"}]}`, "{\r\n\"grants\": []}", `{"grants": [`, `[]`, `{"grants": ["\ud800"]}`, "{\"grants\": [0, 0, 0, \"\xff\"]}"} {
		f.Add(s, int64(0), int64(0))
		f.Add(s, int64(7), int64(4))
	}
	f.Add("0\U0003248f00", int64(3), int64(0)) // the byte past the limit inside a character
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, doc string, bytes, values int64) {
		path := filepath.Join(dir, "f.json")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		l := Limits{JSON: 1 << 40, File: 1 << 20, YAML: 1, Aliases: 1, Bytes: max(0, bytes%(int64(len(doc))+2))}
		if values > 0 {
			l.JSON = 1 + values%64
		}
		if streamed, whole := readBoth(t, path, l); streamed != whole {
			t.Fatalf("as a stream\n%s\nwhole\n%s", streamed, whole)
		}
	})
}
