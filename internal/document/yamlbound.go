package document

// yamlBound counts, from the text alone, at least as many values as the
// YAML library builds for data: document, mapping, sequence, scalar and
// alias nodes, in the two documents that ParseYAML decodes at most. So a
// file's values are bounded before the library expands it.
//
// Each node is charged to a character that it cannot be written without:
//   - each document and its root: 4, for two documents;
//   - a ':' or '?': a mapping entry's key and value, and the mapping
//     itself when the entry is its first;
//   - a '{': a flow mapping, and the key and value of its first entry
//     (an entry may be a key alone, whose value is null);
//   - a ',': the next item of a flow collection, a key and its value at
//     most;
//   - a '[': a flow sequence and its first item;
//   - a '-': a block sequence item, and the sequence when it is its
//     first.
//
// An alias is an item, a key or a value like any other node; anchors,
// tags and comments make no node. The same characters inside strings
// and comments count too, which can only count more. FuzzYAMLBound holds
// the count above the library's on any text it parses.
func yamlBound(data []byte) int64 {
	n := int64(yamlDocuments)
	for _, c := range data {
		n += yamlWeight[c]
	}
	return n
}

// yamlPast returns the offset of the character at which yamlBound's count
// of data passes left (0 when its documents alone do).
func yamlPast(data []byte, left int64) int {
	n := int64(yamlDocuments)
	for off, c := range data {
		n += yamlWeight[c]
		if n > left {
			return off
		}
	}
	return 0
}

// yamlDocuments is what two documents with a scalar or an alias at their
// root make.
const yamlDocuments = 4

var yamlWeight = [256]int64{':': 3, '?': 3, '{': 3, ',': 2, '[': 2, '-': 2}
