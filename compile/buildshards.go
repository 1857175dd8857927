package compile

import (
	"github.com/open-policy-agent/opa/v1/bundle"

	"fmt"

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
// The shards are built one at a time, each released once written, so
// that the tables in memory are the largest shard's, beside the checked
// grants.
func BuildShards(o BuildOptions, n int) (*BuiltShards, error) {
	if n < 2 || n > bundles.MaxShards {
		return nil, fmt.Errorf("--shards %d: a sharded build makes from 2 to %d shards", n, bundles.MaxShards)
	}
	if o.Revision != "" {
		return nil, fmt.Errorf("--revision: a sharded build's revisions are derived from each bundle's contents, so that a change to one tenant's grants changes one shard's revision")
	}
	m, err := o.Limits.Checked(o.Packs, o.Grants)
	if err != nil {
		return nil, err
	}
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
	built, err := writeShards(w, m, o.Signing, n)
	if err != nil {
		w.Abort()
		return nil, err
	}
	return built, w.Commit()
}

// writeShards writes m's policy bundle and n shards with w.
func writeShards(w *bundles.FolderWriter, m *Model, signing *bundles.Signing, n int) (*BuiltShards, error) {
	built := &BuiltShards{Packs: len(m.packs), Grants: len(m.grants)}
	b, data, err := compileToWrite(m, "", n)
	if err != nil {
		return nil, err
	}
	if err := writeBundle(w, bundles.PolicyFile, b, data, signing); err != nil {
		return nil, err
	}
	built.Revision = b.Manifest.Revision
	for k, grants := range shardGrants(m.grants, n) {
		b, data, err := shardBundle(shardTables(m, grants, k, n), k)
		if err != nil {
			return nil, err
		}
		if err := writeBundle(w, bundles.ShardFile(k), b, data, signing); err != nil {
			return nil, err
		}
		built.Shards = append(built.Shards, b.Manifest.Revision)
	}
	return built, nil
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
