package document

import (
	"regexp"
	"strconv"
	"strings"
)

// unescapePointer undoes the escapes of a JSON pointer's segment, built
// once: a Replacer builds its tables on first use, which cost more than
// the replacing when each call made its own (a file of 250,000 errors
// spent a third of its time there).
var unescapePointer = strings.NewReplacer("~1", "/", "~0", "~")

// splitPointer splits a JSON pointer (RFC 6901) into its unescaped
// segments.
func splitPointer(ptr string) []string {
	if ptr == "" {
		return nil
	}
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, s := range segs {
		segs[i] = unescapePointer.Replace(s)
	}
	return segs
}

// Pointer follows a JSON pointer (RFC 6901, "" for the root) and returns the
// node it names, or nil.
func (n *Node) Pointer(ptr string) *Node { return n.At(splitPointer(ptr)) }

// At follows path, one key or array index a step, each as it is (no
// escapes), and returns the node it names, or nil. A step into an object
// is a key even when it reads as a number.
func (n *Node) At(path []string) *Node {
	for _, seg := range path {
		if n = n.step(seg); n == nil {
			return nil
		}
	}
	return n
}

// step returns the member of n with key seg, or the element at index seg
// of an array n, or nil.
func (n *Node) step(seg string) *Node {
	switch {
	case n == nil:
		return nil
	case n.Kind == Object:
		return n.member(seg)
	case n.Kind == Array:
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 || i >= len(n.Items) || strconv.Itoa(i) != seg {
			return nil
		}
		return n.Items[i]
	}
	return nil
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// mapFields are the fields whose members are keyed by names the author
// chose (command keys, trigger refs, argument names), not by the format.
var mapFields = map[string]bool{"verbs": true, "stimuli": true, "commands": true, "args": true, "limits": true}

// Path renders the JSON pointer ptr into n the way a reader writes it in
// prose, as PathTo does.
func (n *Node) Path(ptr string) string { return n.PathTo(splitPointer(ptr)) }

// PathTo renders path (keys and indexes as At takes them) into n the way
// a reader writes it in prose: verbs, transfer, confirm becomes
// verbs["transfer"].confirm and grants, 1 becomes grants[1]. Keys the
// author chose are always quoted, and so is any key that is not a plain
// identifier, with Go's escapes ("3 passed, 0 failed", "a\"b", "\x1b").
func (n *Node) PathTo(path []string) string {
	var b strings.Builder
	parent := ""
	for _, seg := range path {
		switch {
		case n != nil && n.Kind == Array:
			b.WriteString("[" + seg + "]")
		case mapFields[parent] || !identifier.MatchString(seg):
			b.WriteString("[" + strconv.Quote(seg) + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(seg)
		}
		n = n.step(seg)
		parent = seg
	}
	return b.String()
}
