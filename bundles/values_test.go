package bundles_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// ten are limits of 10 values, and bytes enough for every file here.
var ten = bundles.Limits{FileBytes: 1 << 10, TotalBytes: 4 << 10, Values: 10}

// named is a bundle of files by name, as a .tar.gz names them ("/" first).
type named map[string]string

// tarball writes the files as a .tar.gz, in the order of their names.
func (n named) tarball(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range n {
			if !yield(k) {
				return
			}
		}
	}) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(n[name]))}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(n[name]))
	}
	tw.Close()
	zw.Close()
	return writeTemp(t, "b.tar.gz", buf.Bytes())
}

// folder writes the files into a bundle folder.
func (n named) folder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	treetest.Write(t, dir, n)
	return dir
}

// overTen is the refusal of a bundle whose file takes it past ten values.
func overTen(file string) string {
	return file + " takes its JSON files past the limit of 10 values in all (member names count as values)"
}

// TestReadValueLimit reads bundles at and just past the limit of values,
// as a .tar.gz and as a folder: values and member names count, in all
// the JSON files that OPA's reader parses together, not file by file.
func TestReadValueLimit(t *testing.T) {
	tests := []struct {
		name  string
		files named
		want  string // "" to read, else the error's tail after "PATH: bundle refused: "
	}{
		{"at the limit", named{"/data.json": `{"a":[0,0,0,0,0,0,0]}`}, ""},
		{"one value over", named{"/data.json": `{"a":[0,0,0,0,0,0,0,0]}`}, overTen("data.json")},
		{"a member name counts", named{"/data.json": `{"a":[0,0,0,0,0,0],"b":0}`}, overTen("data.json")},
		{"two files at the limit", named{"/data.json": `{"a":[0,0]}`, "/x/data.json": `{"b":[0,0]}`}, ""},
		{"two files one value over", named{"/data.json": `{"a":[0,0,0]}`, "/x/data.json": `{"b":[0,0]}`}, overTen("x/data.json")},
		{"the manifest counts", named{"/.manifest": `{"revision":"r"}`, "/data.json": `{"a":[0,0,0,0,0]}`}, overTen("data.json")},
		{"a patch counts", named{"/patch.json": `{"data":[{},{},{},{},{},{},{},{}]}`}, overTen("patch.json")},
		{"the signatures count", named{"/.signatures.json": `{"signatures":["a","b","c","d","e","f","g","h"]}`}, overTen(".signatures.json")},
		{"a signature's payload at the limit", named{"/.signatures.json": signatures(`{"files":[{},{},{}]}`)}, ""},
		{"a signature's payload counts", named{"/.signatures.json": signatures(`{"files":[{},{},{},{}]}`)}, overTen(".signatures.json")},
		{"a second signature's payload counts", named{"/.signatures.json": `{"signatures":["a.e30.c", ` + strings.TrimPrefix(signatures(`{"files":[{},{}]}`), `{"signatures":[`)}, overTen(".signatures.json")},
		{"other JSON files do not count", named{"/data.json": `{"a":[0,0,0,0,0,0,0]}`, "/x/other.json": `[0,0,0,0,0,0,0,0,0,0,0]`}, ""},
	}
	for _, tt := range tests {
		for form, path := range map[string]string{"tarball": tt.files.tarball(t), "folder": tt.files.folder(t)} {
			t.Run(tt.name+"/"+form, func(t *testing.T) {
				_, err := bundles.Read(path, nil, ten)
				checkLimitError(t, path, err, tt.want)
			})
		}
	}
}

// signatures is a signatures file of one JWT whose payload is payload
// (and whose signature is no signature): 4 values and the payload's.
func signatures(payload string) string {
	return `{"signatures":["eyJhbGciOiJSUzI1NiJ9.` + base64.RawURLEncoding.EncodeToString([]byte(payload)) + `.c2ln"]}`
}

// jsonOnly ends the refusal of a file OPA's reader parses otherwise than
// as JSON.
const jsonOnly = "hcp-rego reads a bundle's data and manifest as JSON only, whose values it counts before OPA reads them"

// TestReadDataNotJSON checks that a data file that OPA's reader would
// read otherwise than as one JSON value, whose values are then not
// counted, is refused at its line and column: text that is not JSON
// (which OPA's reader, checking a signature, reads as YAML), more than one
// value; and a YAML data file or a protobuf manifest.
func TestReadDataNotJSON(t *testing.T) {
	tests := []struct {
		name  string
		files named
		want  string // the error's tail after "PATH: bundle refused: "
	}{
		{"YAML flow", named{"/data.json": "{\"a\": [0,\n  {b: 0}]}"}, "data.json:2:4: invalid JSON: invalid character 'b' at start of value"},
		{"cut short", named{"/data.json": `{"a": [0,`}, "data.json:1:10: invalid JSON: unexpected end of file"},
		{"two values", named{"/data.json": `{"a": 0} {"b": 0}`}, "data.json:1:10: invalid JSON: more than one value"},
		{"a manifest", named{"/.manifest": `{"revision": 'r'}`}, ".manifest:1:14: invalid JSON: invalid character '\\'' at start of value"},
		{"YAML data", named{"/x/data.yaml": "a: [0, 0]\n"}, "x/data.yaml: a YAML data file: " + jsonOnly},
		{"YML data", named{"/data.yml": "a: 0\n"}, "data.yml: a YAML data file: " + jsonOnly},
		{"a protobuf manifest", named{"/.manifest.pb": "\x0a\x01r"}, ".manifest.pb: a protobuf manifest: " + jsonOnly},
	}
	for _, tt := range tests {
		for form, path := range map[string]string{"tarball": tt.files.tarball(t), "folder": tt.files.folder(t)} {
			t.Run(tt.name+"/"+form, func(t *testing.T) {
				_, err := bundles.Read(path, nil, bundles.DefaultLimits)
				var bad *bundles.DataError
				if err == nil || err.Error() != path+": bundle refused: "+tt.want || !errors.As(err, &bad) {
					t.Errorf("error %v\nwant a *bundles.DataError %s: bundle refused: %s", err, path, tt.want)
				}
			})
		}
	}
}

// TestReadDenseGrantsAtByteLimit builds a bundle of dense grant tables
// (3000 principals of three-letter names in five tenants, each a member
// of one slot: some 0.05 values a byte; the tables nested five objects a
// grant deep, before 2026-12, made 0.24 of this set) and reads it with the
// least limits that admit its bytes (LimitsOf its bytes in all, entries
// counted): a bundle of such data under the byte limits passes the limit
// of values.
func TestReadDenseGrantsAtByteLimit(t *testing.T) {
	var grants []map[string]any
	for i := range 3000 {
		for _, tenant := range []string{"a", "b", "c", "d", "e"} {
			name := fmt.Sprintf("%c%c%c", 'a'+i/676, 'a'+i/26%26, 'a'+i%26)
			grants = append(grants, map[string]any{"subject": "principal:" + name, "tenant": tenant, "pack_id": "ledger", "verb_key": "balance", "capabilities": []string{"verb.exec.read"}})
		}
	}
	text, err := json.Marshal(map[string]any{"version": 1, "grants": grants})
	if err != nil {
		t.Fatal(err)
	}
	data := builtFrom(t, []string{"../testdata/packs"}, []string{writeTemp(t, "grants.json", text)})
	var size, total int64
	_, entries := untar(t, data)
	for _, e := range entries {
		if e.hdr.Name == "/data.json" {
			size = int64(len(e.body))
		}
		total += int64(len(e.body)) + bundles.EntryBytes
	}
	lim := bundles.LimitsOf(total)
	if _, err := bundles.Read(writeTemp(t, "b.tar.gz", data), nil, lim); err != nil {
		t.Errorf("data.json of %d bytes, limits %+v: %v", size, lim, err)
	}
	if size < 400_000 {
		t.Errorf("data.json of %d bytes, want the tables of 15,000 grants, some 450 KB", size)
	}
}

// twenty are limits of 20 terms of Rego, and bytes enough for every file
// here. A module "package p\nx := [...]" counts 10 and its elements.
var twenty = bundles.Limits{FileBytes: 1 << 10, TotalBytes: 4 << 10, Values: 10, Terms: 20}

// overTwenty is the refusal of a bundle whose module takes it past twenty
// terms at at, "line:col".
func overTwenty(file, at string) string {
	return file + ":" + at + " takes its Rego modules past the limit of 20 terms in all (identifiers, numbers, strings, brackets and operators)"
}

// TestReadTermLimit reads bundles at and just past the limit of terms, as
// a .tar.gz and as a folder: the terms of the Rego modules count, in all
// the modules together, not module by module, before OPA parses any, and
// the refusal names the token that passes the limit.
func TestReadTermLimit(t *testing.T) {
	const head = "package p\nx := ["
	tests := []struct {
		name  string
		files named
		want  string // "" to read, else the error's tail after "PATH: bundle refused: "
	}{
		{"at the limit", named{"/a.rego": head + "0,0,0,0,0,0,0,0,0,0]"}, ""},
		{"one term over", named{"/a.rego": head + "0,0,0,0,0,0,0,0,0,\n0,0]"}, overTwenty("a.rego", "3:3")},
		{"two modules at the limit", named{"/a.rego": head + "]", "/b/b.rego": head + "]"}, ""},
		{"two modules one term over", named{"/a.rego": head + "]", "/b/b.rego": head + "0]"}, overTwenty("b/b.rego", "2:7")},
		{"comments and strings", named{"/a.rego": "package p\n# [0,0,0,0,0,0,0,0,0,0]\nx := [\"[0,0,0,0,0,0,0,0,0,0]\", `[0,0,0,0,0,0,0,0,0,0]`, 0, 0, 0, 0, 0, 0, 0]"}, ""}, // the comment counts one
		{"a comment over", named{"/a.rego": head + "0,0,0,0,0,0,0,0,0,0]\n#"}, overTwenty("a.rego", "3:1")},
		{"other files do not count", named{"/a.rego": head + "0,0,0,0,0,0,0,0,0,0]", "/x/a.txt": "[0,0,0,0,0,0,0,0,0]"}, ""},
	}
	for _, tt := range tests {
		for form, path := range map[string]string{"tarball": tt.files.tarball(t), "folder": tt.files.folder(t)} {
			t.Run(tt.name+"/"+form, func(t *testing.T) {
				_, err := bundles.Read(path, nil, twenty)
				checkLimitError(t, path, err, tt.want)
			})
		}
	}
}
