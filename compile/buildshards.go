package compile

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/encoded"
)

// BuiltShards says what BuildShards wrote: the policy bundle's revision
// and each shard's, by shard.
type BuiltShards struct {
	Revision      string
	Shards        []string
	Packs, Grants int
}

// BuildShards does what `hcp-rego build --shards N -o DIR` does
// (docs/fleet.md): it reads and checks the packs and grant files as Build
// does, and writes into the folder o.Output the policy bundle
// (bundles.PolicyFile: the library, the rows, the grants without a
// tenant) and n shards (bundles.ShardFile: the grants of the tenants
// whose Shard is K), each signed when asked, the whole folder at once: on
// any error nothing is written and a folder already there is as it was.
// Every revision is derived from its bundle's contents (o.Revision must
// be empty): a change to one tenant's grants changes one shard's bytes.
//
// Its memory is bounded by a bucket of shards, not by the grants
// (docs/fleet.md, "The build's memory"): each grant with a tenant is
// written to a spill file as it is read, and the shards are built from
// it one bucket at a time (spill). A run with any problem is read again
// without spilling, so that every problem is named as Build names it.
func BuildShards(o BuildOptions, n int) (*BuiltShards, error) {
	if n < 2 || n > bundles.MaxShards {
		return nil, fmt.Errorf("--shards %d: a sharded build makes from 2 to %d shards", n, bundles.MaxShards)
	}
	if o.Revision != "" {
		return nil, fmt.Errorf("--revision: a sharded build's revisions are derived from each bundle's contents, so that a change to one tenant's grants changes one shard's revision")
	}
	built, err := buildSpilled(o, n)
	if !errors.Is(err, errReadAgain) {
		return built, err
	}
	m, err := o.Limits.Checked(o.Packs, o.Grants)
	if err != nil {
		return nil, err
	}
	return writeFolder(o, m, len(m.grants), n, heldShards(m.grants, n))
}

// shardSource gives each shard of a build, in turn, its grants with a
// tenant, to yield; it stops at yield's first error.
type shardSource func(yield func(k int, grants []*Grant) error) error

// heldShards is the shardSource of grants held in memory, by their
// tenants' shards among n (shardGrants).
func heldShards(grants []*Grant, n int) shardSource {
	return func(yield func(int, []*Grant) error) error {
		for k, grants := range shardGrants(grants, n) {
			if err := yield(k, grants); err != nil {
				return err
			}
		}
		return nil
	}
}

// buildSpilled builds as BuildShards does, spilling the grants with a
// tenant; errReadAgain when the sources have a problem. The spill is a
// hidden folder beside o.Output, removed when done.
func buildSpilled(o BuildOptions, n int) (*BuiltShards, error) {
	out := filepath.Clean(o.Output)
	sp, err := newSpill(filepath.Dir(out), bundles.HiddenPattern(out, "spill"), n)
	if err != nil {
		return nil, errReadAgain // no folder to spill in: the plain build names why
	}
	defer sp.remove()
	l := o.Limits
	l.spill = sp
	m, err := l.Checked(o.Packs, o.Grants)
	if err != nil {
		return nil, errReadAgain
	}
	if err := sp.finish(); err != nil {
		return nil, err
	}
	total := len(m.grants)
	for i := range m.grantFiles {
		total += sp.spilled(i)
	}
	return writeFolder(o, m, total, n, func(yield func(int, []*Grant) error) error { return sp.shards(m, yield) })
}

// writeFolder checks that o.Output may be written and writes m's policy
// bundle and the n shards that shards gives into it, at once.
func writeFolder(o BuildOptions, m *Model, grants, n int, shards shardSource) (*BuiltShards, error) {
	inputs := m.Inputs()
	if o.Signing != nil {
		inputs = append(inputs, o.Signing.KeyFile)
	}
	if err := bundles.CheckOutput(o.Output, inputs); err != nil {
		return nil, err
	}
	w, err := bundles.NewFolderWriter(o.Output)
	if err != nil {
		return nil, err
	}
	built, err := writeShards(w, m, o.Signing, n, shards)
	if err != nil {
		w.Abort()
		return nil, err
	}
	built.Grants = grants
	return built, w.Commit()
}

// writeShards writes m's policy bundle and the n shards that shards
// gives, each with its grants, with w.
func writeShards(w *bundles.FolderWriter, m *Model, signing *bundles.Signing, n int, shards shardSource) (*BuiltShards, error) {
	built := &BuiltShards{Packs: len(m.packs), Shards: make([]string, n)}
	b, data, err := compileToWrite(m, "", n)
	if err != nil {
		return nil, err
	}
	if err := writeBundle(w, bundles.PolicyFile, b, data, signing); err != nil {
		return nil, err
	}
	built.Revision = b.Manifest.Revision
	err = shards(func(k int, grants []*Grant) error {
		b, data, err := shardBundle(shardTables(m, grants, k, n), k)
		if err != nil {
			return err
		}
		if err := writeBundle(w, bundles.ShardFile(k), b, data, signing); err != nil {
			return err
		}
		built.Shards[k] = b.Manifest.Revision
		return nil
	})
	return built, err
}

// writeBundle signs b when asked and writes it, from its encoded data, as
// name. Unsigned, the data as Go values is not read (the signature alone
// hashes it), and is let go before the bundle is encoded.
func writeBundle(w *bundles.FolderWriter, name string, b *bundle.Bundle, data map[string]any, signing *bundles.Signing) error {
	if signing == nil {
		b.Data = nil
	}
	bytes, err := encoded.Build(b, signing, data)
	if err != nil {
		return err
	}
	return w.Write(name, bytes)
}
