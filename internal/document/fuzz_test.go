package document

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// FuzzParseJSON checks that no input makes the reader panic, and that every
// position it reports lies inside the file.
func FuzzParseJSON(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/*/*/*.json")
	more, _ := filepath.Glob("../../testdata/grants/*.json")
	for _, path := range append(seeds, more...) {
		data, err := os.ReadFile(path)
		if err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"a": [1, {"b": "\u00e9\n"}], "a": null}`))
	f.Add([]byte("{\"\xff\": 1}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := len(treetest.Lines(string(data)))
		quickAgrees(t, data)
		root, err := ParseJSON("f.json", data, nil)
		if err != nil {
			for _, e := range err.(problem.Errors) {
				if e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.Col < 1 {
					t.Fatalf("error position %v outside the file (%d lines): %v", e.Pos, lines, e)
				}
			}
			return
		}
		walk(root, func(n *Node) {
			if n.Pos.Line < 1 || n.Pos.Line > lines || n.Pos.Col < 1 {
				t.Fatalf("value position %v outside the file", n.Pos)
			}
		})
		_ = root.Value()
	})
}

func walk(n *Node, visit func(*Node)) {
	visit(n)
	for _, item := range n.Items {
		walk(item, visit)
	}
}

// quickAgrees fails when quickParse accepts data but the encoding/json walk
// does not, or reads it into another tree.
func quickAgrees(t *testing.T, data []byte) {
	t.Helper()
	quick, _, ok := quickParse(data, unbounded(), nil)
	if !ok || len(bytes.TrimSpace(data)) == 0 || !utf8.Valid(data) {
		return
	}
	walked, err := (&parser{file: "f.json", data: data, ix: newLineIndex(data), vals: unbounded()}).walk()
	if err != nil {
		t.Fatalf("quickParse accepted what the walk refuses: %v", err)
	}
	if !reflect.DeepEqual(quick, walked) {
		t.Fatalf("quickParse and the walk read different trees")
	}
}
