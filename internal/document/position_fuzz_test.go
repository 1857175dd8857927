package document

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// naivePos computes the position of the byte at offset from the start of
// data: the definition that lineIndex must meet however it is asked.
func naivePos(data []byte, offset int) problem.Pos {
	p := problem.Pos{Line: 1, Col: 1}
	for off := 0; off < offset; {
		_, size := utf8.DecodeRune(data[off:])
		if lineBreak(data, off) {
			p = problem.Pos{Line: p.Line + 1, Col: 1}
		} else {
			p.Col++
		}
		off += size
	}
	return p
}

// lineBreak reports whether a line ends with the byte at off: a "\n", or
// a "\r" that no "\n" follows.
func lineBreak(data []byte, off int) bool {
	switch data[off] {
	case '\n':
		return true
	case '\r':
		return !bytes.HasPrefix(data[off+1:], []byte("\n"))
	}
	return false
}

// naiveOffset is the inverse of naivePos: the offset of the character at
// p, or -1 when the file has none there.
func naiveOffset(data []byte, p problem.Pos) int {
	at := problem.Pos{Line: 1, Col: 1}
	for off := 0; off <= len(data); {
		if at == p {
			return off
		}
		if off == len(data) {
			break
		}
		_, size := utf8.DecodeRune(data[off:])
		if lineBreak(data, off) {
			at = problem.Pos{Line: at.Line + 1, Col: 1}
		} else {
			at.Col++
		}
		off += size
	}
	return -1
}

// FuzzLineIndex asks the position mapper for the character starts of any
// file, in file order (as the parser asks) and then in random order, and
// holds every answer to the naive walk from the start.
func FuzzLineIndex(f *testing.F) {
	f.Add([]byte("{\n\t\"a\": \"é日本\",\r\n \"b\": [1,\n2]}\n"), uint64(1))
	f.Add([]byte("\xff\xfe\n\xc3\x28x\n\n"), uint64(2))
	f.Add([]byte("a\rb\r\nc\r\r\nd\r"), uint64(3))
	f.Add([]byte(""), uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		var starts []int
		for off := 0; off < len(data); {
			starts = append(starts, off)
			_, size := utf8.DecodeRune(data[off:])
			off += size
		}
		starts = append(starts, len(data), len(data)+5) // past the end: the position after the last byte
		ix := newLineIndex(data)
		for _, off := range starts {
			if got, want := ix.pos(off), naivePos(data, min(off, len(data))); got != want {
				t.Fatalf("in order: offset %d at %v, want %v", off, got, want)
			}
		}
		r := rand.New(rand.NewPCG(seed, seed>>1))
		for range min(len(starts), 64) {
			off := starts[r.IntN(len(starts))]
			if got, want := ix.pos(off), naivePos(data, min(off, len(data))); got != want {
				t.Fatalf("at random: offset %d at %v, want %v", off, got, want)
			}
		}
	})
}

// FuzzParsedPositions parses any document and checks that the position of
// every value names the character where the value starts, and that of
// every key the quote that opens it: a string or key read again from
// there is the same text, a number the same literal.
func FuzzParsedPositions(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/*/*/*.json")
	for _, path := range seeds {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("{\"a\" :\t[ 1 ,-2.5e3 , \"\\u00e9\\n\" ,{} ,[ ] ,true,false ,null ],\r\n\"é\":\"日本\" , \"\":0}"))
	// Keys that a JSON Schema validator's locations escape or drop.
	f.Add([]byte("{\"verbs\": {\"3 passed, 0 failed\": {\"a%20b\": 1, \"100%\": [\"\\u001b\"], \"a/b~0~1\": {},\n\"\": {\"é 日本 😀\": \"a\\\"b\\\\c\"}, \"\\u2028\\t\": 0, \"0\": [{\"+\": null}]}}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := ParseJSON("f.json", data, nil)
		if err != nil {
			return
		}
		walk(root, func(n *Node) {
			off := naiveOffset(data, n.Pos)
			if off < 0 || off >= len(data) {
				t.Fatalf("%s value at %v: no such character", n.Kind, n.Pos)
			}
			if !startsValue(data[off:], n) {
				t.Fatalf("%s value at %v starts with %.20q", n.Kind, n.Pos, data[off:])
			}
			if n.KeyPos != (problem.Pos{}) {
				key := naiveOffset(data, n.KeyPos)
				if key < 0 || readString(data[key:]) != n.Key || key >= off {
					t.Fatalf("key %q at %v starts with %.20q", n.Key, n.KeyPos, data[max(key, 0):])
				}
			}
		})
	})
}

// startsValue reports whether text starts with the JSON form of n.
func startsValue(text []byte, n *Node) bool {
	switch n.Kind {
	case Object:
		return text[0] == '{'
	case Array:
		return text[0] == '['
	case String:
		return readString(text) == n.Text
	case Number:
		return bytes.HasPrefix(text, []byte(n.Text))
	case Bool:
		return bytes.HasPrefix(text, []byte(map[bool]string{true: "true", false: "false"}[n.Bool]))
	}
	return bytes.HasPrefix(text, []byte("null"))
}

// readString decodes the JSON string that text starts with; a sentinel
// that no key or string equals when it starts with none.
func readString(text []byte) string {
	if len(text) == 0 || text[0] != '"' {
		return "\x00not a string"
	}
	tok, err := json.NewDecoder(bytes.NewReader(text)).Token()
	if s, ok := tok.(string); ok && err == nil {
		return s
	}
	return "\x00not a string"
}
