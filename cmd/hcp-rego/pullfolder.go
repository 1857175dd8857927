package main

import (
	"context"
	"fmt"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/oci"
	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// runPullFolder pulls the sharded build of o.shards shards at the
// references derived from ref (folderMembers) into the folder o.output,
// each bundle checked as pull checks one and as what its name says, the
// folder written as a whole (bundles.FolderWriter).
func runPullFolder(ctx context.Context, s streams, o pullOptions, ref oci.Reference) error {
	if o.shards < 2 || o.shards > bundles.MaxShards {
		return badInput(fmt.Errorf("--shards %d: a sharded build has from 2 to %d shards", o.shards, bundles.MaxShards))
	}
	members, err := folderMembers(ref, o.shards)
	if err != nil {
		return badInput(err)
	}
	if err := bundles.CheckOutput(o.output, []string{o.bundle.verify.KeyFile}); err != nil {
		return badInput(err)
	}
	w, err := bundles.NewFolderWriter(o.output)
	if err != nil {
		return badInput(err)
	}
	ctx, cancel, err := withTransferTimeout(ctx, o.timeout)
	if err != nil {
		w.Abort()
		return badInput(err)
	}
	defer cancel()
	revision, err := pullMembers(ctx, w, members, o)
	if err != nil {
		w.Abort()
		return badInput(timedOut(ctx, o.timeout, err))
	}
	if err := w.Commit(); err != nil {
		return badInput(err)
	}
	r := o.bundle.reader()
	_, err = fmt.Fprintf(s.out, "wrote %s: %s revision %s and %d shards%s\n", printable.Quote(o.output), bundles.PolicyFile, printable.Quote(revision), o.shards, verifiedNote(r.Verify))
	return err
}

// pullMembers pulls each bundle of members, checks it is what its name
// says, and writes it with w, one at a time, so that a build of many
// shards costs the memory of its largest bundle. It returns the policy
// bundle's revision.
func pullMembers(ctx context.Context, w *bundles.FolderWriter, members []member, o pullOptions) (string, error) {
	r := o.bundle.reader()
	var revision string
	for _, m := range members {
		b, data, err := r.Pull(ctx, m.ref)
		if err != nil {
			return "", err
		}
		if err := checkMember(m.ref.String(), b, m, o.shards); err != nil {
			return "", err
		}
		if m.shard < 0 {
			revision = b.Manifest.Revision
		}
		if err := w.Write(m.file, data); err != nil {
			return "", err
		}
	}
	return revision, nil
}
