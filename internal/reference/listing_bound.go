package reference

import (
	"encoding/json"
	"unicode/utf8"
)

// The bounds of a listing's input (docs/permissions.md): its members, and
// the characters of their names and of their values that are neither
// objects nor arrays.
const (
	maxListingMembers = 64
	maxListingText    = 65536
)

// listingBounded reports whether a listing's input is within both bounds.
func listingBounded(doc map[string]any) bool {
	return len(doc) <= maxListingMembers && listingText(doc) <= maxListingText
}

// listingText counts the characters of doc's member names and of its
// values other than objects and arrays: a string's own, another value's
// JSON text's.
func listingText(doc map[string]any) int {
	n := 0
	for name, v := range doc {
		n += utf8.RuneCountInString(name)
		switch v := v.(type) {
		case map[string]any, []any:
		case string:
			n += utf8.RuneCountInString(v)
		default:
			text, _ := json.Marshal(v)
			n += len(text)
		}
	}
	return n
}

// sizeProblems say which bound a listing's input passes.
func sizeProblems(input any) []string {
	doc, ok := input.(map[string]any)
	switch {
	case !ok:
		return nil
	case len(doc) > maxListingMembers:
		return []string{"top level: a listing's input may hold at most 64 members"}
	case listingText(doc) > maxListingText:
		return []string{"top level: a listing's input may hold at most 65536 characters in its names and in its values other than objects and arrays"}
	}
	return nil
}

// toAny turns strings into a JSON array's elements.
func toAny(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}
