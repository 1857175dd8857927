package main

import (
	"bufio"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// commentOutsideRE finds, in a comment, a citation of the contract that
// the repository does not hold: its name or a section sign. A reader of
// the code has docs/ and nothing else.
var commentOutsideRE = regexp.MustCompile(`\bSPEC\b|§`)

// commentDocRE finds, in a comment, a docs page and its anchor, if any:
// docs/decisions.md, docs/bundles.md#provenance.
var commentDocRE = regexp.MustCompile(`\bdocs/([A-Za-z0-9_-]+\.md)(#[A-Za-z0-9_-]+)?`)

// TestCommentsCiteDocs holds every Go comment of the repository (tests
// too, testdata aside) to what a reader of the repository has: it cites
// docs pages, never the contract outside it, and every page it cites
// exists, with the heading its anchor names.
func TestCommentsCiteDocs(t *testing.T) {
	root := filepath.Join("..", "..")
	anchors := map[string]map[string]bool{} // page → its headings' anchors
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		files++
		for _, c := range goComments(t, path) {
			if bad := commentOutsideRE.FindString(c.text); bad != "" {
				t.Errorf("%s:%d: a comment cites %q, which the repository does not hold: cite a docs page", c.file, c.line, bad)
			}
			for _, m := range commentDocRE.FindAllStringSubmatch(c.text, -1) {
				checkDocCitation(t, root, anchors, c, m[1], strings.TrimPrefix(m[2], "#"))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files under %s: not the repository?", files, root)
	}
}

// goComment is one comment of a Go file, at the line it starts on.
type goComment struct {
	file string
	line int
	text string
}

// goComments returns the comments of the Go file at path, read by the Go
// scanner, so that a "//" inside a string is no comment.
func goComments(t *testing.T, path string) []goComment {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) { t.Errorf("%s: %s", pos, msg) }, scanner.ScanComments)
	var comments []goComment
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return comments
		}
		if tok == token.COMMENT {
			comments = append(comments, goComment{file: path, line: fset.Position(pos).Line, text: lit})
		}
	}
}

// checkDocCitation checks that docs/page exists and, when anchor is not
// empty, that one of its headings has that anchor.
func checkDocCitation(t *testing.T, root string, anchors map[string]map[string]bool, c goComment, page, anchor string) {
	t.Helper()
	have, ok := anchors[page]
	if !ok {
		var err error
		have, err = headingAnchors(filepath.Join(root, "docs", page))
		if err != nil {
			t.Errorf("%s:%d: a comment cites docs/%s: %v", c.file, c.line, page, err)
		}
		anchors[page] = have
	}
	if have != nil && anchor != "" && !have[anchor] {
		t.Errorf("%s:%d: a comment cites docs/%s#%s, but no heading of the page has that anchor", c.file, c.line, page, anchor)
	}
}

// headingAnchors returns the anchors that GitHub gives the headings of a
// Markdown page: lines starting with "#" outside fenced blocks, each
// lowercased, without its punctuation, spaces made "-", and "-1", "-2",
// ... added to a repeated one.
func headingAnchors(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		line := lines.Text()
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		text, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !strings.HasPrefix(line, "#") || !ok {
			continue
		}
		anchor := headingAnchor(text)
		if n := seen[anchor]; n > 0 {
			anchors[anchor+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[anchor] = true
		}
		seen[anchor]++
	}
	return anchors, lines.Err()
}

// headingAnchor is the anchor GitHub makes of a heading's text.
func headingAnchor(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestHeadingAnchor holds headingAnchor to the anchors GitHub gives
// headings of docs/ that comments cite.
func TestHeadingAnchor(t *testing.T) {
	for text, want := range map[string]string{
		"The decision input":                                  "the-decision-input",
		"A pack: `manifest.json` and `policy.json`":           "a-pack-manifestjson-and-policyjson",
		"Evaluating one call (eval)":                          "evaluating-one-call-eval",
		"Coverage of the model (`--coverage`, `--threshold`)": "coverage-of-the-model---coverage---threshold",
		"A runtime's data":                                    "a-runtimes-data",
		"compare, matrix --diff and replay":                   "compare-matrix---diff-and-replay",
	} {
		if got := headingAnchor(text); got != want {
			t.Errorf("headingAnchor(%q) = %q, want %q", text, got, want)
		}
	}
}
