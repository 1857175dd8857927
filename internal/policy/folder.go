package policy

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// expandFolders puts, in place of a sharded build's folder (one that
// holds bundles.PolicyFile and no .manifest, so not a bundle folder),
// its policy bundle and its shards in order: `--bundle DIR` decides as a
// sidecar that loads them all.
func expandFolders(names []string) []string {
	var out []string
	for _, name := range names {
		out = append(out, folderBundles(name)...)
	}
	return out
}

// folderBundles are the bundles of the sharded build's folder dir, or
// dir alone when it is not one.
func folderBundles(dir string) []string {
	if _, err := os.Stat(filepath.Join(dir, bundles.PolicyFile)); err != nil {
		return []string{dir}
	}
	if _, err := os.Stat(filepath.Join(dir, ".manifest")); err == nil {
		return []string{dir}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []string{dir}
	}
	type shard struct {
		k    int
		path string
	}
	var shards []shard
	for _, e := range entries {
		if k, ok := bundles.IsShardFile(e.Name()); ok {
			shards = append(shards, shard{k, filepath.Join(dir, e.Name())})
		}
	}
	slices.SortFunc(shards, func(a, b shard) int { return a.k - b.k })
	out := []string{filepath.Join(dir, bundles.PolicyFile)}
	for _, s := range shards {
		out = append(out, s.path)
	}
	return out
}
