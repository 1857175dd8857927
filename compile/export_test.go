package compile

// What the package's own tests read of its unexported encoding: the
// packed rows and grant positions that the decision library decodes, and
// the generated modules.
var (
	EncodeRow      = encodeRow
	DecodeRow      = decodeRow
	PreviewText    = previewText
	EncodePosition = encodePosition
	DecodePosition = decodePosition
	PackModule     = packModule
)

// PackedRow is a row as the decision library reads it.
type PackedRow = packedRow

// Module is one generated module.
type Module = module

// GrantDigest is the sha256 of a grant file the model read.
func (c *contents) GrantDigest(path string) (string, bool) { return c.grantDigest(path) }
