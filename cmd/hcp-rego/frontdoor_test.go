package main

import (
	"os"
	"path/filepath"
	"regexp"
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
