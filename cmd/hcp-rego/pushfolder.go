package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/oci"
	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// checkedFile is a folder's bundle file as push checked it: what is sent
// must be these bytes.
type checkedFile struct {
	member
	path     string
	sum      [sha256.Size]byte
	revision string
}

// runPushFolder pushes the sharded build's folder o.file to the
// references derived from ref (folderMembers): every file checked first,
// every bundle stored, then the tags moved, the policy bundle's last.
func runPushFolder(ctx context.Context, s streams, o pushOptions, ref oci.Reference) error {
	files, err := checkFolder(o.file, ref, o.bundle)
	if err != nil {
		return badInput(err)
	}
	ctx, cancel, err := withTransferTimeout(ctx, o.timeout)
	if err != nil {
		return badInput(err)
	}
	defer cancel()
	digests, err := pushFiles(ctx, files, ref, o)
	if err != nil {
		return badInput(timedOut(ctx, o.timeout, err))
	}
	for i, f := range files {
		if _, err := fmt.Fprintf(s.out, "%s %s %s %s\n", f.name, f.ref, digests[i], word(f.revision)); err != nil {
			return err
		}
	}
	return nil
}

// word is s as one word of a line that a script splits on spaces: as it
// is when it is one, else Go-quoted.
func word(s string) string {
	if s == "" || strings.ContainsFunc(s, unicode.IsSpace) || printable.Quote(s) != s {
		return strconv.Quote(s)
	}
	return s
}

// checkFolder reads every bundle of the sharded build's folder dir as
// push reads one, and refuses the folder unless it is one build's whole:
// its policy bundle, and shards 0 to N-1 of the N it names, nothing
// else. Every bad file is named at once. It keeps each file's sha256,
// not its bytes, so that a folder of many shards costs the memory of
// its largest.
func checkFolder(dir string, ref oci.Reference, flags bundleFlags) ([]checkedFile, error) {
	shards, err := folderFiles(dir)
	if err != nil {
		return nil, err
	}
	r := flags.reader()
	policyPath := filepath.Join(dir, bundles.PolicyFile)
	b, data, err := r.ReadFile(policyPath)
	if err != nil {
		return nil, err
	}
	n, ok := bundles.PolicyShards(b)
	if !ok {
		return nil, fmt.Errorf("%s: not a sharded build's policy bundle (%s): push DIR takes a sharded build's folder", printable.LineStart(policyPath), policyShardsText(b))
	}
	if err := checkShardFiles(dir, shards, n); err != nil {
		return nil, err
	}
	members, err := folderMembers(ref, n)
	if err != nil {
		return nil, err
	}
	files := []checkedFile{{member: members[0], path: policyPath, sum: sha256.Sum256(data), revision: b.Manifest.Revision}}
	var errs problem.Errors
	for _, m := range members[1:] {
		path := filepath.Join(dir, m.file)
		b, data, err := r.ReadFile(path)
		if err == nil {
			err = checkMember(path, b, m, n)
		}
		if err != nil {
			errs.Merge("", err)
			continue
		}
		files = append(files, checkedFile{member: m, path: path, sum: sha256.Sum256(data), revision: b.Manifest.Revision})
	}
	return files, errs.Err()
}

// pushFiles stores every file in the registry, each read again and sent
// only when it holds the bytes checked, and then moves the tags: the
// shards' first, the policy bundle's (files[0]) last, so that a sidecar
// sees the policy bundle of a build only once its shards are there. It
// returns each file's manifest digest.
func pushFiles(ctx context.Context, files []checkedFile, ref oci.Reference, o pushOptions) ([]string, error) {
	batch, err := oci.Remote{PlainHTTP: o.plainHTTP}.NewBatch(ref)
	if err != nil {
		return nil, err
	}
	digests := make([]string, len(files))
	order := append(files[1:len(files):len(files)], files[0])
	for i, f := range order {
		data, err := bundles.ReadTarballFile(f.path, o.bundle.limit.limits())
		if err != nil {
			return nil, err
		}
		if sha256.Sum256(data) != f.sum {
			return nil, fmt.Errorf("%s: changed since it was checked: push it again", printable.LineStart(f.path))
		}
		d, err := batch.Stage(ctx, f.ref, data, f.revision)
		if err != nil {
			return nil, err
		}
		digests[(i+1)%len(files)] = d
	}
	return digests, batch.Commit(ctx)
}
