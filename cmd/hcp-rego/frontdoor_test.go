package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readDoc returns a document of the repository, relative to its root.
func readDoc(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestReadmeFrontDoor holds the README to what a newcomer reads first:
// under 250 lines; before its first section, what HCP is (its name
// spelled out, with a link) and what hcp-rego adds, and a link to the
// glossary; and the two commands.
func TestReadmeFrontDoor(t *testing.T) {
	readme := readDoc(t, "README.md")
	if n := strings.Count(readme, "\n"); n >= 250 {
		t.Errorf("README.md has %d lines, want fewer than 250", n)
	}
	first, _, _ := strings.Cut(readme, "\n## ")
	for _, want := range []string{
		"Harness Context Protocol](https://harnesscontextprotocol.io/",
		"](docs/glossary.md)",
		"Rego modules and OPA bundles",
		"$ make demo",
		"$ make test",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("README.md's first screen has no %q", want)
		}
	}
}

// TestGlossary holds docs/glossary.md to the words a newcomer met without
// a meaning: each is a bold entry of its own.
func TestGlossary(t *testing.T) {
	glossary := readDoc(t, "docs/glossary.md")
	for _, word := range []string{"HCP", "Pack", "Row", "Land", "`personal`", "`brain`", "`local`",
		"Confirm gate", "Grant", "Tenant", "GPARS", "Runtime layer", "Harness"} {
		entry := regexp.MustCompile(`(?m)^\s*- (\*\*` + regexp.QuoteMeta(word) + `\*\*|` + regexp.QuoteMeta(word) + `:)`)
		if !entry.MatchString(glossary) {
			t.Errorf("docs/glossary.md has no entry for %s", word)
		}
	}
}

// TestNoSeedNumbers keeps the numbers of the project's source documents
// ("seed 004") out of what a reader reads: the README, docs/ and every
// command's help name the HCP document instead.
func TestNoSeedNumbers(t *testing.T) {
	seed := regexp.MustCompile(`(?i)\bseed\s+` + "`?" + `0\d\d`)
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if m := seed.Find(data); m != nil {
			t.Errorf("%s: says %q, a number the reader has no document for", file, m)
		}
	}
	for _, cmd := range newRootCommand(streams{}).Commands() {
		if m := seed.FindString(cmd.Long + cmd.Example); m != "" {
			t.Errorf("hcp-rego %s --help: says %q, a number the reader has no document for", cmd.Name(), m)
		}
	}
}

// harnessLock is the lockfile of the harness packages the export tests
// load exported files with.
const harnessLock = "internal/export/testdata/_harness/package-lock.json"

// TestNodeVersionSaid holds every "Node.js N or later" of the README, the
// docs and the Makefile to the lowest Node.js major version that every
// package of the harness lockfile admits, so that the prerequisite stays
// true when the pins move.
func TestNodeVersionSaid(t *testing.T) {
	var lock struct {
		Packages map[string]struct {
			Engines json.RawMessage `json:"engines"`
		} `json:"packages"`
	}
	if err := json.Unmarshal([]byte(readDoc(t, harnessLock)), &lock); err != nil {
		t.Fatal(err)
	}
	var ranges []string
	for _, p := range lock.Packages {
		var engines struct{ Node string }
		if json.Unmarshal(p.Engines, &engines) == nil && engines.Node != "" {
			ranges = append(ranges, engines.Node)
		}
	}
	need := 0
	for need < 100 && slices.IndexFunc(ranges, func(r string) bool { return !nodeRangeAdmits(r, need) }) >= 0 {
		need++
	}
	if need == 100 {
		t.Fatal("no Node.js major version below 100 satisfies every engines.node of " + harnessLock)
	}
	said := regexp.MustCompile(`Node\.js (\d+) or later`)
	for _, file := range append(docFiles(t), "../../Makefile") {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range said.FindAllStringSubmatch(string(data), -1) {
			if m[1] != strconv.Itoa(need) {
				t.Errorf("%s says %q; the harness packages need Node.js %d or later", file, m[0], need)
			}
		}
	}
}

// nodeRangeAdmits says whether an npm engines range ("^18.19.0 || >=20.6.0",
// "20 || >=22", ">= 0.4") admits the newest release of Node.js major
// version major. It reads the forms the lockfile holds; one it cannot read
// admits nothing, so that it fails the test rather than pass it.
func nodeRangeAdmits(r string, major int) bool {
	newest := [3]int{major, 1 << 20, 1 << 20}
	for _, alt := range strings.Split(r, "||") {
		ok := true
		for _, c := range strings.Fields(strings.ReplaceAll(strings.ReplaceAll(alt, ">= ", ">="), "< ", "<")) {
			ok = ok && nodeComparatorAdmits(c, newest)
		}
		if ok && strings.TrimSpace(alt) != "" {
			return true
		}
	}
	return false
}

var nodeComparatorRE = regexp.MustCompile(`^(>=|>|<=|<|\^)?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$`)

// nodeComparatorAdmits says whether one comparator (">=20.6.0", "^18",
// "4.x", "*") admits version v.
func nodeComparatorAdmits(c string, v [3]int) bool {
	if c == "*" {
		return true
	}
	m := nodeComparatorRE.FindStringSubmatch(c)
	if m == nil {
		return false
	}
	var want [3]int
	wild := 3
	for i, s := range m[2:] {
		n, err := strconv.Atoi(s)
		if err != nil {
			wild = min(wild, i)
			continue
		}
		want[i] = n
	}
	cmp := slices.Compare(v[:], want[:])
	switch m[1] {
	case ">=":
		return cmp >= 0
	case ">":
		return cmp > 0
	case "<=":
		return cmp <= 0
	case "<":
		return cmp < 0
	case "^":
		return v[0] == want[0] && cmp >= 0
	}
	return slices.Equal(v[:wild], want[:wild])
}

// TestNodeRangeAdmits holds the reader of engines ranges to npm's meaning
// on the forms the lockfile holds.
func TestNodeRangeAdmits(t *testing.T) {
	tests := []struct {
		r     string
		major int
		want  bool
	}{
		{">=22", 20, false}, {">=22", 22, true}, {">= 20.19.0", 20, true},
		{"20 || >=22", 21, false}, {"20 || >=22", 20, true}, {"20 || >=22", 24, true},
		{"^18.19.0 || >=20.6.0", 19, false}, {"^18.19.0 || >=20.6.0", 18, true},
		{">=9.3.0 || >=8.10.0 <9.0.0", 8, true}, {"4.x || >=6.0.0", 5, false},
		{"*", 0, true}, {"lts/*", 22, false},
	}
	for _, tt := range tests {
		if got := nodeRangeAdmits(tt.r, tt.major); got != tt.want {
			t.Errorf("nodeRangeAdmits(%q, %d) = %v, want %v", tt.r, tt.major, got, tt.want)
		}
	}
}
