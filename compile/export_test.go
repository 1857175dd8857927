package compile

// What the package's own tests read of its unexported encoding: the grant
// positions that the decision library decodes, and the packs' rows as
// data.
var (
	EncodePosition = encodePosition
	DecodePosition = decodePosition
	PacksData      = packsData
	// FolderBytes is every file of a sharded build's folder, by name.
	FolderBytes = folderBytes
)

// GrantDigest is the sha256 of a grant file the model read.
func (c *contents) GrantDigest(path string) (string, bool) { return c.grantDigest(path) }
