package document

import (
	"regexp"
	"strconv"
	"strings"
)

// The escapes of a JSON pointer's segments, built once: a Replacer builds
// its tables on first use, which cost more than the replacing when each
// call made its own (a file of 250,000 errors spent a third of its time
// there).
var (
	unescapePointer = strings.NewReplacer("~1", "/", "~0", "~")
	escapePointer   = strings.NewReplacer("~", "~0", "/", "~1")
)

// splitPointer splits a JSON pointer into its unescaped segments.
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

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// mapFields are the fields whose members are keyed by names the author
// chose (command keys, trigger refs, argument names), not by the format.
var mapFields = map[string]bool{"verbs": true, "stimuli": true, "commands": true, "args": true, "limits": true}

// Path renders the JSON pointer ptr into n the way a reader writes it in
// prose: /verbs/transfer/confirm becomes verbs["transfer"].confirm and
// /grants/1 becomes grants[1]. Keys the author chose are always quoted.
func (n *Node) Path(ptr string) string {
	var b strings.Builder
	parent := ""
	for _, seg := range splitPointer(ptr) {
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
		n = n.Pointer("/" + escapePointer.Replace(seg))
		parent = seg
	}
	return b.String()
}
