package schema

import (
	"bytes"
	"cmp"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// Items validates a document whose array at a top-level member is read
// element by element (document.ParseJSONStream, a grant file's grants):
// Check validates each element against the array's items schema as it
// comes, and Validate the rest of the document, which holds the array
// empty. Together they find what Validate finds in the whole document,
// worded alike at the same positions, its first MaxProblems listed and
// the rest counted; yet no more than one element is held at a time.
//
// The array's own keywords (minItems, uniqueItems, contains) would see
// it empty: the schemas streamed this way have none (TestItemsSchemas).
type Items struct {
	s        *Schema
	file     string
	item     *jsonschema.Schema
	key      string // the array's member of the top level
	keywords string // the location of its items schema
	// listed are the elements' first leaves, translated, until they make
	// MaxProblems problems; unlisted counts the leaves after them, the
	// first at firstUnlisted.
	listed        []listedLeaf
	problems      int
	unlisted      int
	firstUnlisted problem.Pos
}

// listedLeaf is one leaf of an element, where it stands and its problems.
type listedLeaf struct {
	pos     problem.Pos
	keyword string
	errs    problem.Errors
}

// Items returns the validation of file, a document of the schema whose
// top-level member key, an array, is read element by element.
func (s *Schema) Items(file, key string) *Items {
	return &Items{s: s, file: file, item: s.itemSchema(key), key: key, keywords: itemsLocation(key)}
}

// itemsLocation is the location of the items schema of the top-level
// member key.
func itemsLocation(key string) string { return "/properties/" + key + "/items" }

// itemSchema returns the compiled items schema of the top-level member
// key, compiled once. The schemas are part of the binary, so a failure
// here is a bug, and it panics.
func (s *Schema) itemSchema(key string) *jsonschema.Schema {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if c, ok := s.items[key]; ok {
		return c
	}
	text, err := Text(s.name)
	if err != nil {
		panic(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(s.name+suffix, bytes.NewReader(text)); err != nil {
		panic(err)
	}
	compiled, err := c.Compile(s.name + suffix + "#" + itemsLocation(key))
	if err != nil {
		panic(err)
	}
	if s.items == nil {
		s.items = map[string]*jsonschema.Schema{}
	}
	s.items[key] = compiled
	return compiled
}

// Check validates element i of the array, and reports whether it is
// valid. Its problems are kept, worded, while the file has fewer than
// MaxProblems; past that they are counted.
func (it *Items) Check(i int, n *document.Node) bool {
	err := it.item.Validate(n.Value())
	if err == nil {
		return true
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		it.keep(listedLeaf{pos: n.Pos, errs: problem.Errors{{File: it.file, Msg: err.Error()}}})
		return false
	}
	if it.problems >= MaxProblems && it.unlisted > 0 {
		// Only how many: where they stand and what they say is not told.
		it.unlisted += len(it.s.leaves(ve, it.keywords))
		return false
	}
	// The key is a plain name: PathTo writes the element so.
	sc := scope{root: n, path: fmt.Sprintf("%s[%d]", it.key, i), keywords: it.keywords}
	for _, l := range placed(n, it.s.leaves(ve, it.keywords)) {
		if it.problems < MaxProblems {
			it.keep(listedLeaf{pos: l.pos, keyword: l.leaf.KeywordLocation, errs: it.s.translate(it.file, sc, l.leaf)})
			continue
		}
		if it.unlisted == 0 {
			it.firstUnlisted = l.pos
		}
		it.unlisted++
	}
	return false
}

func (it *Items) keep(l listedLeaf) {
	it.listed = append(it.listed, l)
	it.problems += len(l.errs)
}

// Validate validates root, the document read with the array empty, and
// returns every violation of the document, the elements' with it, as
// Schema.Validate does for the whole document: sorted, the first
// MaxProblems listed and a last line that says how many more there are.
func (it *Items) Validate(root *document.Node) error {
	top, err := it.s.violations(it.file, scope{root: root}, it.s.compiled)
	if err != nil {
		return err
	}
	// The leaves in the order of where they stand, as Validate takes
	// them: the top level's and the elements', which never share a
	// position.
	total := len(top) + len(it.listed) + it.unlisted
	var errs problem.Errors
	for i, j, k := 0, 0, 0; k < total; k++ {
		fromTop := j >= len(it.listed)+it.unlisted ||
			i < len(top) && before(top[i].pos, top[i].leaf.KeywordLocation, it.next(j))
		if len(errs) >= MaxProblems {
			pos := it.next(j).pos
			if fromTop {
				pos = top[i].pos
			}
			errs = append(errs, notListed(it.file, pos, total-k))
			break
		}
		if fromTop {
			errs = append(errs, it.s.translate(it.file, scope{root: root}, top[i].leaf)...)
			i++
			continue
		}
		// Every element's leaf reached while fewer than MaxProblems are
		// listed is a listed one: the listed make MaxProblems when any
		// is not.
		errs = append(errs, it.listed[j].errs...)
		j++
	}
	return errs.Err() // sorted, each problem once
}

// next is the elements' leaf j: a listed one, or, past them, the first
// unlisted, which is all that is needed of those.
func (it *Items) next(j int) listedLeaf {
	if j < len(it.listed) {
		return it.listed[j]
	}
	return listedLeaf{pos: it.firstUnlisted}
}

// before reports whether a leaf at pos, of keyword, comes before l, as
// placed sorts leaves.
func before(pos problem.Pos, keyword string, l listedLeaf) bool {
	return cmp.Or(cmp.Compare(pos.Line, l.pos.Line), cmp.Compare(pos.Col, l.pos.Col), cmp.Compare(keyword, l.keyword)) < 0
}
