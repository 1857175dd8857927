package document

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
)

// zeros is a JSON array of n zeros: n+1 values, the i-th zero at column
// 2i.
func zeros(n int) []byte {
	return []byte("[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]")
}

// TestJSONValueLimit holds the exact edge of a run's JSON values, in a
// file that the quick reader reads and in one that only the walk does
// (a duplicate key sends it there), below and above a chunk of values.
func TestJSONValueLimit(t *testing.T) {
	for _, n := range []int{5, valueChunk + 5, 3*valueChunk + 1} {
		for _, dup := range []bool{false, true} {
			data := zeros(n)
			values := int64(n + 1)
			if dup { // the same values and the same columns, in an object
				data = []byte(`{"a":1,"a":` + string(data[:len(data)-1]) + "]}")
				values += 2 // the object and "a":1; the array's items 11 columns on
			}
			name := fmt.Sprintf("%d zeros, walked only: %v", n, dup)
			if _, err := ParseJSON("f.json", data, NewBudgetOf(Limits{JSON: values, File: values, YAML: 1, Aliases: 1})); err != nil && !dup {
				t.Errorf("%s: a budget of its %d values: %v", name, values, err)
			}
			_, err := ParseJSON("f.json", data, NewBudgetOf(Limits{JSON: values - 1, File: 1 << 40, YAML: 1, Aliases: 1}))
			col := 2 * n // the last zero
			if dup {
				col += 11
			}
			want := fmt.Sprintf("f.json:1:%d: more values than the limit of %d for the JSON files of one run", col, values-1)
			if err == nil || err.Error() != want {
				t.Errorf("%s: a budget of one value fewer:\n got %v\nwant %s", name, err, want)
			}
		}
	}
}

// TestJSONValueBudgetShared reads files each under the limit with one
// budget: together they pass it. What a file takes stays taken, also
// when it is refused, and a file refused never makes another fit.
func TestJSONValueBudgetShared(t *testing.T) {
	b := NewBudgetOf(Limits{JSON: 5000, File: 1 << 40, YAML: 1, Aliases: 1})
	if _, err := ParseJSON("a.json", zeros(2999), b); err != nil { // 3,000 values
		t.Fatalf("the first file: %v", err)
	}
	_, err := ParseJSON("b.json", zeros(2999), b)
	want := "b.json:1:4000: more values than the limit of 5000 for the JSON files of one run" // its 2,001st value
	if err == nil || err.Error() != want {
		t.Fatalf("the second file:\n got %v\nwant %s", err, want)
	}
	_, err = ParseJSON("c.json", []byte("0"), b)
	if want := "c.json:1:1: more values than the limit of 5000 for the JSON files of one run"; err == nil || err.Error() != want {
		t.Fatalf("a one-value file after a refused one:\n got %v\nwant %s", err, want)
	}
	// A file's syntax error sends it from the quick reader to the walk:
	// what the quick reader took goes back, and the walk takes it again.
	b = NewBudgetOf(Limits{JSON: 5000, File: 1 << 40, YAML: 1, Aliases: 1})
	if _, err := ParseJSON("d.json", append(zeros(2999), ','), b); err == nil {
		t.Fatal("a file with a trailing comma was accepted")
	}
	if _, err := ParseJSON("e.json", zeros(1999), b); err != nil {
		t.Fatalf("2,000 values after a broken file of 3,000 under a budget of 5,000: %v", err)
	}
	if _, err := ParseJSON("f.json", []byte("0"), b); err == nil {
		t.Fatal("the 5,001st value was accepted")
	}
}

// TestJSONValueBudgetParallel parses files in parallel with one budget,
// as compile.Load does: together they hold exactly what the files hold,
// or the run is refused.
func TestJSONValueBudgetParallel(t *testing.T) {
	const files, each = 8, 10*valueChunk + 7
	for _, limit := range []int64{files * (each + 1), files*(each+1) - 1} {
		b := NewBudgetOf(Limits{JSON: limit, File: 1 << 40, YAML: 1, Aliases: 1})
		var wg sync.WaitGroup
		errs := make([]error, files)
		for i := range files {
			wg.Go(func() { _, errs[i] = ParseJSON("f.json", zeros(each), b) })
		}
		wg.Wait()
		refused := 0
		for _, err := range errs {
			if err != nil {
				refused++
			}
		}
		if fits := limit == files*(each+1); fits != (refused == 0) {
			t.Errorf("limit %d for %d values: %d files refused", limit, files*(each+1), refused)
		}
		if left := b.json.left.Load(); left < 0 || (refused == 0 && left != 0) {
			t.Errorf("limit %d: %d left", limit, left)
		}
	}
}

// TestJSONValueBudgetHeld holds the edge of a run's values between two
// parses, the first holding a chunk it took and does not use: the second
// fits the limit with what the first gives back, and the run is refused
// only past it. The first gives its values back once the second has
// taken the last one left and waits for more.
func TestJSONValueBudgetHeld(t *testing.T) {
	for _, limit := range []int64{valueChunk + 1, valueChunk} {
		b := NewBudgetOf(Limits{JSON: limit, File: 1 << 40, YAML: 1, Aliases: 1})
		first, second := newTally(b), newTally(b)
		if !first.one(true) { // takes a chunk, uses one value of it
			t.Fatalf("limit %d: the first value refused", limit)
		}
		go func() {
			c := &b.json
			c.mu.Lock()
			for c.left.Load() > 0 || c.holders > 1 {
				c.back.Wait()
			}
			c.mu.Unlock()
			first.keep()
		}()
		fitted := true
		for range valueChunk {
			if !second.one(true) {
				fitted = false
				break
			}
		}
		second.keep()
		if want := limit == valueChunk+1; fitted != want || b.Refused() == want {
			t.Errorf("limit %d for %d values: fitted %v, refused %v", limit, valueChunk+1, fitted, b.Refused())
		}
	}
}

// TestJSONFileValueLimit holds the exact edge of one file's values: a
// file holds no more, whatever the run's budget has left, and the next
// file has as many again.
func TestJSONFileValueLimit(t *testing.T) {
	for _, n := range []int{5, valueChunk + 5} {
		b := NewBudgetOf(Limits{JSON: 1 << 40, File: int64(n + 1), YAML: 1, Aliases: 1})
		if _, err := ParseJSON("a.json", zeros(n), b); err != nil {
			t.Errorf("%d values under a file limit of as many: %v", n+1, err)
		}
		_, err := ParseJSON("b.json", zeros(n+1), b)
		want := fmt.Sprintf("b.json:1:%d: more values than the limit of %d for one JSON file", 2*(n+1), n+1)
		if err == nil || err.Error() != want {
			t.Errorf("%d values:\n got %v\nwant %s", n+2, err, want)
		}
	}
}

// TestHostileJSONValues reads 40 MB of zeros, 20 million values: refused
// at the limit of one file with far less allocated than reading them.
func TestHostileJSONValues(t *testing.T) {
	data := zeros(20_000_000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ParseJSON("z.json", data, NewBudget())
	runtime.ReadMemStats(&after)
	want := fmt.Sprintf("z.json:1:%d: more values than the limit of 1048576 for one JSON file", 2*MaxFileValues)
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	// Reading all 20 million values allocates 2.9 GB, some 145 bytes each.
	got := (after.TotalAlloc - before.TotalAlloc) >> 20
	if got > 256 {
		t.Errorf("refused after %d MiB of allocation", got)
	}
	t.Logf("refused after %d MiB of allocation", got)
}

// TestYAMLValueLimit holds the edge of yamlBound's count: a file whose
// count fits is parsed, one more refused at the character that passes
// the limit, before the YAML library reads it.
func TestYAMLValueLimit(t *testing.T) {
	doc := "a: [1, 2]\nb:\n  - {c: d}\n" // 4 + 3 + 2 + 2 + 3 + 2 + 3 + 3 = 22
	if got := yamlBound([]byte(doc)); got != 22 {
		t.Fatalf("yamlBound = %d, want 22", got)
	}
	if _, err := ParseYAML("f.yaml", []byte(doc), NewBudgetOf(Limits{JSON: 1, File: 1, YAML: 22, Aliases: 1})); err != nil {
		t.Fatalf("a budget of 22: %v", err)
	}
	_, err := ParseYAML("f.yaml", []byte(doc), NewBudgetOf(Limits{JSON: 1, File: 1, YAML: 21, Aliases: 1}))
	want := "f.yaml:3:7: more values than the limit of 21 for the YAML files of one run (counted before parsing: a ':', '?' or '{' counts 3, a '[', ',' or '-' 2)"
	if err == nil || err.Error() != want {
		t.Fatalf("a budget of 21:\n got %v\nwant %s", err, want)
	}
	b := NewBudgetOf(Limits{JSON: 1, File: 1, YAML: 40, Aliases: 1})
	if _, err := ParseYAML("one.yaml", []byte(doc), b); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseYAML("two.yaml", []byte(doc), b); err == nil || !strings.HasPrefix(err.Error(), "two.yaml:3:5: more values") {
		t.Fatalf("the second file of a budget of 40: %v", err)
	}
}

// TestHostileYAMLValues gives 8 MB of "[0,0,...]": it took 6.4 GB and 49
// s through hcp-rego test. It is refused before it is parsed.
func TestHostileYAMLValues(t *testing.T) {
	data := []byte("cases: " + string(zeros(4_000_000)) + "\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ParseYAML("c.yaml", data, nil)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.HasPrefix(err.Error(), "c.yaml:1:") || !strings.Contains(err.Error(), "more values than the limit of 1048576 for the YAML files") {
		t.Fatalf("got %v", err)
	}
	if got := (after.TotalAlloc - before.TotalAlloc) >> 20; got > 64 {
		t.Errorf("refused after %d MiB of allocation", got)
	}
}

// TestYAMLBoundOfCaseFiles holds yamlBound above the library's nodes on
// the repository's case files, and reports how far above.
func TestYAMLBoundOfCaseFiles(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/cases/*.cases.yaml")
	if len(paths) == 0 {
		t.Fatal("no case files")
	}
	var bound, nodes int64
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n, ok := yamlNodes(data)
		if !ok {
			t.Fatalf("%s does not parse", path)
		}
		if b := yamlBound(data); b < n {
			t.Errorf("%s: bound %d below the library's %d nodes", path, b, n)
		}
		bound, nodes = bound+yamlBound(data), nodes+n
	}
	t.Logf("case files: bound %d for %d nodes (%.1fx)", bound, nodes, float64(bound)/float64(nodes))
}

// FuzzYAMLBound holds yamlBound at or above the nodes the YAML library
// builds for the two documents ParseYAML decodes at most.
func FuzzYAMLBound(f *testing.F) {
	for _, s := range []string{
		"a: 1", "- - - a", "[a: b, c: d]", "{a, b}", "? a\n? b\n", "a\n...\nb\n", "--- a\n--- b\n",
		"[]", "{}", "- ", "a:\n  b:\n    - c\n", "[? a]", "&x a", "- &x [1]\n- *x\n", "|\n  text\n", "{a: [b, {c: d}], e: f}",
		"!!map {a: b}", "[a, [b, [c]]]", "a: b\n---\n- c\n- d\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if n, ok := yamlNodes(data); ok && yamlBound(data) < n {
			t.Fatalf("bound %d below the library's %d nodes", yamlBound(data), n)
		}
	})
}

// yamlNodes counts the nodes the YAML library builds for the first two
// documents of data, as ParseYAML decodes them; false when it refuses
// the first.
func yamlNodes(data []byte) (int64, bool) {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var total int64
	for i := range 2 {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			return total, i > 0
		}
		total += countYAMLNodes(&doc)
	}
	return total, true
}

func countYAMLNodes(n *yaml.Node) int64 {
	c := int64(1)
	for _, m := range n.Content {
		c += countYAMLNodes(m)
	}
	return c
}
