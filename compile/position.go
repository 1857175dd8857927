package compile

// module is one Rego module of a bundle: where it goes, and its source.
type module struct {
	Path   string
	Source []byte
}

// encodePosition is a grant's position in one number, its file (in the
// order given) times 2^32 plus its line, so that the first grant is the
// smallest position (rego/library/grants.rego decodes it).
func encodePosition(file, line int) int64 { return int64(file)<<32 | int64(line) }

// decodePosition is the file (in the order given) and line of a position.
func decodePosition(p int64) (file, line int) { return int(p >> 32), int(p & (1<<32 - 1)) }
