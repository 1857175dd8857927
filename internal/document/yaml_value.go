package document

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// value converts one YAML node at the given nesting depth; nil when it is
// wrong (the problem is recorded).
func (y *yamlReader) value(n *yaml.Node, depth int) *Node {
	if y.stopped {
		return nil
	}
	if n.Anchor != "" {
		return y.anchored(n, depth)
	}
	return y.convert(n, depth)
}

// anchored converts an anchored value once, so that problems inside it are
// reported once, at the anchor, however often aliases repeat it.
func (y *yamlReader) anchored(n *yaml.Node, depth int) *Node {
	if v, ok := y.done[n]; ok {
		return v
	}
	y.open[n] = true
	v := y.convert(n, depth)
	delete(y.open, n)
	y.done[n] = v
	return v
}

func (y *yamlReader) convert(n *yaml.Node, depth int) *Node {
	switch n.Kind {
	case yaml.AliasNode:
		return y.alias(n, depth)
	case yaml.MappingNode, yaml.SequenceNode:
		if depth >= MaxDepth {
			y.add(n, "nesting deeper than %d levels", MaxDepth)
			return nil
		}
		if n.Kind == yaml.SequenceNode {
			return y.sequence(n, depth+1)
		}
		return y.mapping(n, depth+1)
	case yaml.ScalarNode:
		return y.scalar(n)
	}
	y.add(n, "unexpected YAML node")
	return nil
}

// alias expands *name: a copy of the anchored value standing at the
// alias's position.
func (y *yamlReader) alias(n *yaml.Node, depth int) *Node {
	target := n.Alias
	if target == nil || y.open[target] {
		y.add(n, "alias *%s refers to a value that holds it", n.Value)
		return nil
	}
	v := y.value(target, depth)
	if v == nil {
		return nil
	}
	copied, err := y.clone(v, depth)
	if err == errTooManyAliased {
		y.add(n, "alias *%s: aliases expand to more than %d values, the limit for all the YAML files of one run", n.Value, y.aliases.limit)
		y.stopped = true
		return nil
	}
	if err != nil {
		y.add(n, "alias *%s: %v", n.Value, err)
		return nil
	}
	copied.Pos, copied.Key, copied.KeyPos = y.pos(n), "", problem.Pos{}
	return copied
}

var (
	errTooManyAliased = errors.New("aliases expand past the run's limit")
	errTooDeep        = fmt.Errorf("nesting deeper than %d levels", MaxDepth)
)

// clone deep-copies a converted value placed at depth, counting what alias
// expansion adds and stopping when the count or the nesting passes its
// limit.
func (y *yamlReader) clone(v *Node, depth int) (*Node, error) {
	if !y.aliases.take(1) {
		return nil, errTooManyAliased
	}
	c := *v
	if v.Kind != Array && v.Kind != Object {
		return &c, nil
	}
	if depth >= MaxDepth {
		return nil, errTooDeep
	}
	c.Items = make([]*Node, 0, len(v.Items))
	if v.fields != nil {
		c.fields = make(map[string]*Node, len(v.fields))
	}
	for _, item := range v.Items {
		ci, err := y.clone(item, depth+1)
		if err != nil {
			return nil, err
		}
		c.Items = append(c.Items, ci)
		if c.fields != nil {
			c.fields[ci.Key] = ci
		}
	}
	return &c, nil
}

func (y *yamlReader) sequence(n *yaml.Node, depth int) *Node {
	out := &Node{Kind: Array, Pos: y.pos(n)}
	for _, item := range n.Content {
		if v := y.value(item, depth); v != nil {
			out.Items = append(out.Items, v)
		}
	}
	return out
}

// mapping converts a mapping. Explicit keys come first and must be unique;
// "<<" merge keys then add the members of their mappings that no explicit
// key (or earlier merge) gave.
func (y *yamlReader) mapping(n *yaml.Node, depth int) *Node {
	out := &Node{Kind: Object, Pos: y.pos(n), fields: map[string]*Node{}}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		key, ok := y.key(k)
		if !ok {
			continue
		}
		member := y.value(v, depth)
		if member == nil {
			continue
		}
		member.Key, member.KeyPos = key, y.pos(k)
		if first, dup := out.fields[key]; dup {
			y.add(k, "duplicate key %q (first at %d:%d)", key, first.KeyPos.Line, first.KeyPos.Col)
			continue
		}
		out.fields[key] = member
		out.Items = append(out.Items, member)
	}
	for _, m := range merges {
		y.merge(out, m, depth)
	}
	return out
}

// key returns the text of a mapping key, which must be a scalar.
func (y *yamlReader) key(k *yaml.Node) (string, bool) {
	if k.Kind != yaml.ScalarNode {
		y.add(k, "a key must be a scalar, not %s", yamlKindWords(k))
		return "", false
	}
	if len(k.Value) > MaxStringBytes {
		y.add(k, "key of %d bytes is longer than the limit of %d", len(k.Value), MaxStringBytes)
		return "", false
	}
	return k.Value, true
}

// merge adds to out the members of the mapping (or sequence of mappings)
// that a "<<" key names, where out has no member of that key yet.
func (y *yamlReader) merge(out *Node, src *yaml.Node, depth int) {
	sources := []*yaml.Node{src}
	if src.Kind == yaml.SequenceNode {
		sources = src.Content
	}
	for _, s := range sources {
		v := y.value(s, depth)
		if v == nil {
			continue
		}
		if v.Kind != Object {
			y.add(s, "a merge key (<<) takes a mapping or a list of mappings, not %s", article(v.Kind))
			continue
		}
		for _, member := range v.Items {
			if _, ok := out.fields[member.Key]; !ok {
				out.fields[member.Key] = member
				out.Items = append(out.Items, member)
			}
		}
	}
}

func yamlKindWords(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.AliasNode:
		return "an alias"
	}
	return "a value"
}

func article(k Kind) string {
	switch k {
	case Array, Object:
		return "an " + k.String()
	case Null:
		return "null"
	}
	return "a " + k.String()
}

// scalar converts a scalar by its resolved tag.
func (y *yamlReader) scalar(n *yaml.Node) *Node {
	out := &Node{Pos: y.pos(n)}
	tag := n.ShortTag()
	if tag == "!!str" && n.Style == 0 && jsonNumber.MatchString(n.Value) {
		// A plain number out of float64's range (1e400) is a string to
		// yaml.v3, and a number to JSON.
		tag = "!!float"
	}
	switch tag {
	case "!!null":
		out.Kind = Null
	case "!!bool":
		out.Kind = Bool
		if err := n.Decode(&out.Bool); err != nil {
			y.add(n, "invalid boolean %q", n.Value)
			return nil
		}
	case "!!int", "!!float":
		text, ok := y.number(n)
		if !ok {
			return nil
		}
		out.Kind, out.Text = Number, text
	case "!!str", "!!timestamp":
		if len(n.Value) > MaxStringBytes {
			y.add(n, "string of %d bytes is longer than the limit of %d", len(n.Value), MaxStringBytes)
			return nil
		}
		out.Kind, out.Text = String, n.Value
	default:
		y.add(n, "unsupported YAML tag %s: want a string, number, boolean or null", tag)
		return nil
	}
	return out
}

var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// number returns the JSON text of a YAML number: as written when JSON
// could write it so, else the value YAML reads (0x1F is 31).
func (y *yamlReader) number(n *yaml.Node) (string, bool) {
	if jsonNumber.MatchString(n.Value) {
		if problem := numberProblem(n.Value); problem != "" {
			y.add(n, "%s", problem)
			return "", false
		}
		return n.Value, true
	}
	var v any
	if err := n.Decode(&v); err != nil {
		y.add(n, "invalid number %q", n.Value)
		return "", false
	}
	switch v := v.(type) {
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case uint64:
		return strconv.FormatUint(v, 10), true
	case float64:
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			return strconv.FormatFloat(v, 'g', -1, 64), true
		}
	}
	y.add(n, "%s is not a number JSON can hold", n.Value)
	return "", false
}
