package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/oci"
	"github.com/hcp-rego/hcp-rego/internal/printable"
)

type pullOptions struct {
	ref     string
	output  string
	shards  int
	sharded bool // --shards given
	bundle  bundleFlags
	timeout time.Duration
}

func newPullCommand(s streams) *cobra.Command {
	var o pullOptions
	cmd := &cobra.Command{
		Use:   "pull REF (-o FILE.tar.gz | --shards N -o DIR) [--plain-http] [--verification-key K ...]",
		Short: "Pull a bundle from an OCI registry, checked as eval --bundle checks it",
		Long: `Pull fetches the bundle at REF (host[:port]/repository:tag or
...@sha256:DIGEST) as OPA's oci service finds it, the image manifest's
application/vnd.oci.image.layer.v1.tar+gzip layer (through image indexes,
as OPA follows them), and writes its bytes to FILE as they are. The bundle is first checked as eval --bundle checks it,
verifying its signature when --verification-key is given, within
--max-bundle-bytes. FILE is written to a temporary file beside it and
renamed: on any failure nothing is written and FILE is left as it was.
Credentials come from the Docker config, as for push.

--shards N pulls a sharded build of N shards, as push DIR REF pushed it,
into the folder DIR: the policy bundle from REF, which must be a tag, and
shard K from REF's repository at the tag TAG-shard-K, for each K below N.
Each is checked as above, and must be what its name says: the policy
bundle of a build of N shards, shard K of N. DIR is written as build
--shards writes it, as a whole: on any failure nothing is written, and a
folder already there must hold only a sharded build's files.`,
		Example: `  hcp-rego pull registry.example.com/policy/hcp:prod -o hcp.tar.gz \
    --verification-key testdata/keys/rsa.pub --verification-key-id hcp
  hcp-rego pull registry.example.com/policy/hcp:prod --shards 8 -o shards --verification-key testdata/keys/rsa.pub`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ref = args[0]
			o.sharded = cmd.Flags().Changed("shards")
			return runPull(cmd.Context(), s, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "the bundle file to write, or with --shards the folder (required)")
	f.IntVar(&o.shards, "shards", 0, "pull a sharded build of N shards (2 to 4096) into the folder -o")
	addRegistryFlag(f, &o.bundle, "talk HTTP, not HTTPS, to the registry")
	addBundleFlags(cmd, &o.bundle)
	addTimeoutFlag(f, &o.timeout)
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

func runPull(ctx context.Context, s streams, o pullOptions) error {
	if err := checkVerification(o.bundle.verify); err != nil {
		return badInput(err)
	}
	ref, err := oci.ParseReference(o.ref)
	if err != nil {
		return badInput(err)
	}
	if o.sharded {
		return runPullFolder(ctx, s, o, ref)
	}
	if err := bundles.CheckOutput(o.output, []string{o.bundle.verify.KeyFile}); err != nil {
		return badInput(err)
	}
	r := o.bundle.reader()
	ctx, cancel, err := withTransferTimeout(ctx, o.timeout)
	if err != nil {
		return badInput(err)
	}
	defer cancel()
	b, data, err := r.Pull(ctx, ref)
	if err != nil {
		return badInput(timedOut(ctx, o.timeout, err))
	}
	if err := bundles.WriteFileAtomic(o.output, data); err != nil {
		return badInput(err)
	}
	_, err = fmt.Fprintf(s.out, "wrote %s: revision %s%s\n", printable.Quote(o.output), printable.Quote(b.Manifest.Revision), verifiedNote(r.Verify))
	return err
}

// verifiedNote says whether the bundle written was verified.
func verifiedNote(v *bundles.Verification) string {
	if v == nil {
		return ", signature not verified"
	}
	return ", signature verified"
}
