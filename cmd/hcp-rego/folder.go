package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/oci"
	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// A sharded build's folder (build --shards N -o DIR) goes to a registry
// one bundle a reference, all derived from REF, which must name a tag
// (docs/fleet.md): the policy bundle at REF itself (REPO:TAG), and each
// shard at REPO:TAG-NAME, where NAME is its name in a sidecar's
// configuration, its file name without .tar.gz (shard-K). push DIR REF
// and pull REF --shards N -o DIR use the same references.

// member is one bundle of a sharded build's folder.
type member struct {
	name  string        // its name in a sidecar's configuration: "hcp", "shard-K"
	file  string        // its file name in the folder
	shard int           // K, -1 for the policy bundle
	ref   oci.Reference // where it is pushed
}

// folderMembers are the bundles of a sharded build of n shards, the
// policy bundle first and then the shards in order, with their
// references derived from base. A base without a tag, or whose tag would
// grow past OCI's 128 characters, is refused.
func folderMembers(base oci.Reference, n int) ([]member, error) {
	tag := base.Tag()
	if tag == "" {
		return nil, fmt.Errorf("REF %s names a digest: a sharded build's bundles are pushed and pulled under tags derived from REF's (REPO:TAG, REPO:TAG-shard-K): give REF a tag", base.Quoted())
	}
	members := []member{{name: bundleName(bundles.PolicyFile), file: bundles.PolicyFile, shard: -1, ref: base}}
	for k := range n {
		file := bundles.ShardFile(k)
		ref, err := base.Tagged(tag + "-" + bundleName(file))
		if err != nil {
			return nil, err
		}
		members = append(members, member{name: bundleName(file), file: file, shard: k, ref: ref})
	}
	return members, nil
}

// bundleName is the name of a folder's bundle file in a sidecar's
// configuration: the file name without .tar.gz.
func bundleName(file string) string { return strings.TrimSuffix(file, ".tar.gz") }

// checkMember refuses b, read as name, unless it is m: the policy bundle
// of a build of n shards, or shard m.shard of n.
func checkMember(name string, b *bundle.Bundle, m member, n int) error {
	var errs problem.Errors
	if m.shard < 0 {
		if got, ok := bundles.PolicyShards(b); !ok || got != n {
			errs.Add(name, problem.Pos{}, "not the policy bundle of a sharded build of %d shards (%s)", n, policyShardsText(b))
		}
		return errs.Err()
	}
	info, ok := bundles.Shard(b)
	if !ok || info.Index != m.shard || info.Of != n {
		errs.Add(name, problem.Pos{}, "not shard %d of %d (%s)", m.shard, n, shardText(info, ok))
	}
	return errs.Err()
}

// policyShardsText says what policy bundle b is.
func policyShardsText(b *bundle.Bundle) string {
	if got, ok := bundles.PolicyShards(b); ok {
		return "it is of " + strconv.Itoa(got)
	}
	if _, shard := bundles.Shard(b); shard {
		return "it is a shard"
	}
	return "it is an unsharded build's bundle"
}

// shardText says what shard a bundle is.
func shardText(info bundles.ShardInfo, ok bool) string {
	if !ok {
		return "it is not a shard"
	}
	return fmt.Sprintf("it is shard %d of %d", info.Index, info.Of)
}

// folderFiles lists the sharded build's folder dir, refusing one that
// holds anything build does not write there (a folder to push is a
// build's, whole) or no policy bundle: the shard files it holds, by K.
func folderFiles(dir string) (map[int]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", printable.LineStart(dir), problem.Describe(err, "no such folder"))
	}
	var errs problem.Errors
	shards := map[int]bool{}
	policy := false
	for _, e := range entries {
		k, shard := bundles.IsShardFile(e.Name())
		switch {
		case !e.Type().IsRegular() || !shard && e.Name() != bundles.PolicyFile:
			errs.Add(filepath.Join(dir, e.Name()), problem.Pos{}, "not a file that build --shards writes (%s, shard-K.tar.gz): push DIR takes a sharded build's folder as build wrote it", bundles.PolicyFile)
		case shard:
			shards[k] = true
		default:
			policy = true
		}
	}
	if !policy {
		errs.Add(dir, problem.Pos{}, "no %s: push DIR takes a sharded build's folder (build --shards N -o DIR)", bundles.PolicyFile)
	}
	return shards, errs.Err()
}

// checkShardFiles refuses a folder whose shard files are not those of
// shards 0 to n-1: a shard missing would leave its tag on another
// build's, and one past n belongs to another build.
func checkShardFiles(dir string, shards map[int]bool, n int) error {
	var errs problem.Errors
	for k := range n {
		if !shards[k] {
			errs.Add(filepath.Join(dir, bundles.ShardFile(k)), problem.Pos{}, "missing: its policy bundle names %d shards", n)
		}
	}
	for k := range shards {
		if k >= n {
			errs.Add(filepath.Join(dir, bundles.ShardFile(k)), problem.Pos{}, "past the %d shards its policy bundle names: a file of another build", n)
		}
	}
	return errs.Err()
}
