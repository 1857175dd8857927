package compile

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// Kind says whether a row is a command or a trigger.
type Kind uint8

// The two kinds of rows.
const (
	Verb Kind = iota
	Stimulus
)

// String is the kind's word: "verb" or "stimulus", as policy.json's
// sections and the matrix name them.
func (k Kind) String() string {
	if k == Stimulus {
		return "stimulus"
	}
	return "verb"
}

// Field is the decision input's field that names a row of the kind:
// verb_key or stimulus. (Section is its policy.json member.)
func (k Kind) Field() string {
	if k == Stimulus {
		return "stimulus"
	}
	return "verb_key"
}

// Section is the policy.json object that holds rows of the kind.
func (k Kind) Section() string {
	if k == Stimulus {
		return "stimuli"
	}
	return "verbs"
}

// Gate is a row's confirm value as written.
type Gate uint8

// The confirm values.
const (
	NoGate     Gate = iota // confirm absent or false
	GateTrue               // confirm: true
	GateAlways             // confirm: "always"
)

// JSON returns the value the decision document carries for the gate:
// false, true or "always".
func (g Gate) JSON() any {
	switch g {
	case GateTrue:
		return true
	case GateAlways:
		return "always"
	}
	return false
}

// The four capabilities (docs/files.md#a-grant-file). None implies another
// (docs/decisions.md#the-chain).
const (
	CapRead    = "verb.exec.read"
	CapWrite   = "verb.exec.write"
	CapConnect = "pack.connect"
	CapSense   = "sense.enable"
)

// Row is one policy.json entry: a command or a trigger of one pack.
type Row struct {
	Pack      string
	Kind      Kind
	Key       string
	Operation string // "read" or "write"
	Land      string // "personal", "brain" or "local"
	Gate      Gate
	Connect   bool     // a command that establishes or refreshes a Binding
	CLI       []string // the manifest's cli template; nil when it has none
	File      string   // the policy.json path as given
	Line      int      // the line of the row's key

	node *document.Node
}

// Capability is the capability a caller must hold to run the row
// (docs/decisions.md#the-chain, capability).
func (r *Row) Capability() string {
	switch {
	case r.Kind == Stimulus:
		return CapSense
	case r.Connect:
		return CapConnect
	case r.Operation == "write":
		return CapWrite
	}
	return CapRead
}

// Source is the row's provenance, "packs/ledger/policy.json:7".
func (r *Row) Source() string { return fmt.Sprintf("%s:%d", r.File, r.Line) }

// isConnectKey reports whether a command key names a connect command by
// itself: "connect" or anything ending in ".connect".
func isConnectKey(key string) bool {
	return key == "connect" || strings.HasSuffix(key, ".connect")
}

// Pack is one checked pack.
type Pack struct {
	ID           string
	Dir          string
	PolicyFile   string
	ManifestFile string
	Verbs        map[string]*Row
	Stimuli      map[string]*Row
	// Digests maps each source file path to the hex sha256 of its bytes.
	Digests map[string]string

	policy, manifest *document.Node
	commands         map[string]*document.Node // manifest commands by key
	triggers         map[string]*document.Node // manifest trigger refs by key
}

// Rows returns the pack's rows of one kind.
func (p *Pack) Rows(k Kind) map[string]*Row {
	if k == Stimulus {
		return p.Stimuli
	}
	return p.Verbs
}

// Row returns the row for a key of one kind, or nil.
func (p *Pack) Row(k Kind, key string) *Row { return p.Rows(k)[key] }

// Grant is one capability grant.
type Grant struct {
	File         string
	N            int // 1-based position in its file, as lint names it
	Index        int // 0-based position among all grants given, in order
	FileIndex    int // 0-based position of its file among those given
	Line         int
	Subject      string // "principal:ID", "role:NAME" or "default"
	Tenant       string // "" when the grant holds for every tenant
	PackID       string
	VerbKey      string
	Stimulus     string
	Capabilities []string

	places grantPlaces
}

// grantPlaces are where lint names a grant's problems: the values of its
// pack_id, of its verb_key or stimulus, and, when its scope refuses one
// of its capabilities (misfits), of each capability. A grant keeps them,
// not its parse tree, in as few bytes as it can: a million grants keep a
// million of them.
type grantPlaces struct {
	pack, scope  place
	capabilities *[]problem.Pos // nil but for a grant with a misfit
}

// place is where a value of a grant file starts, in half the bytes of a
// problem.Pos. A line or column past 2,147,483,647 (a file of 2 GiB on
// one line) is told as that.
type place struct{ line, col int32 }

func placeOf(p problem.Pos) place {
	return place{int32(min(p.Line, math.MaxInt32)), int32(min(p.Col, math.MaxInt32))}
}

func (p place) pos() problem.Pos { return problem.Pos{Line: int(p.line), Col: int(p.col)} }

// misfits reports whether the grant's scope refuses capability c
// (docs/files.md#a-grant-file): sense.enable on a verb_key, any other on a
// stimulus.
func (g *Grant) misfits(c string) bool {
	return g.VerbKey != "" && c == CapSense || g.Stimulus != "" && c != CapSense
}

// Source is the grant's provenance, "grants/acme.json:5".
func (g *Grant) Source() string { return fmt.Sprintf("%s:%d", g.File, g.Line) }

// Position orders grants as docs/decisions.md (item 3) counts "first": by
// the position of the file among those given, then by line. It packs both
// in one number (file << 32 | line), from which the decision library
// rebuilds the grant's source: the tables then need no list of every
// grant's source.
func (g *Grant) Position() int64 { return encodePosition(g.FileIndex, g.Line) }

// contents is what a model holds: packs sorted by id, and grants in the
// order of the files given and of the grants within them. Sources and
// Model both hold it; only Sources.Check makes a Model of it. Its lists
// are unexported: callers read copies of them (Packs, Grants, GrantFiles,
// grantDigest), so that no caller can change what a model holds.
type contents struct {
	packs      []*Pack
	grants     []*Grant
	grantFiles []string
	// grantDigests maps each grant file path to the hex sha256 of its bytes.
	grantDigests map[string]string

	byID map[string]*Pack
}

// Model is everything one run compiles, checked: every file read, valid
// and lint clean (docs/files.md). Only Sources.Check returns one, and
// only a Model can be compiled (Compile). It no longer holds the parsed
// files, which only lint reads. Its lists are sealed: Packs, Grants and
// GrantFiles return copies, so that nothing a caller does to them changes
// the model; the *Pack and *Grant values they point to are the model's
// own, shared by everything that reads it, and by rule never changed.
type Model struct {
	contents
}

// Packs returns the packs, sorted by id, in a new slice: changing the
// slice does not change the sources or the model. Take it once, not once
// a grant or a decision: it copies the list.
func (c *contents) Packs() []*Pack { return slices.Clone(c.packs) }

// Grants returns the grants, in the order of the files given and of the
// grants within them, in a new slice: changing the slice does not change
// the sources or the model. Take it once, not once a grant or a decision:
// it copies the list.
func (c *contents) Grants() []*Grant { return slices.Clone(c.grants) }

// GrantFiles returns the paths of the grant files read, in the order
// given, in a new slice.
func (c *contents) GrantFiles() []string { return slices.Clone(c.grantFiles) }

// grantDigest returns the hex sha256 of the bytes of the grant file at
// path, as GrantFiles names it, and whether that file was read.
func (c *contents) grantDigest(path string) (string, bool) {
	sum, ok := c.grantDigests[path]
	return sum, ok
}

// Pack returns the pack with the given id, or nil.
func (c *contents) Pack(id string) *Pack { return c.byID[id] }

// Inputs are the paths the model was read from: each pack's folder,
// manifest and policy, and each grant file. A run's output must be none
// of them, nor lie inside one of the folders (docs/reliability.md, "An
// output never replaces an input"; bundles.CheckOutput).
func (c *contents) Inputs() []string {
	var paths []string
	for _, p := range c.packs {
		paths = append(paths, p.Dir, p.ManifestFile, p.PolicyFile)
	}
	return append(paths, c.grantFiles...)
}
