package problem

// Pos is a position in a file: Line and Col start at 1. Col counts
// characters (Unicode code points), not bytes, so a position reads the same
// in any editor; an invalid UTF-8 byte counts as one character. The zero Pos
// means "no position".
type Pos struct {
	Line int
	Col  int
}
