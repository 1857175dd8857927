package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/internal/oci"
)

type pushOptions struct {
	file      string
	ref       string
	plainHTTP bool
	bundle    bundleFlags // --max-bundle-bytes alone
	timeout   time.Duration
}

func newPushCommand(s streams) *cobra.Command {
	var o pushOptions
	cmd := &cobra.Command{
		Use:   "push (FILE.tar.gz | DIR) REF [--plain-http]",
		Short: "Push a bundle to an OCI registry, where OPA's oci service pulls it",
		Long: `Push stores the bundle that build wrote as an OCI image manifest that
OPA's oci service type downloads as it is: one layer
application/vnd.oci.image.layer.v1.tar+gzip holding the bundle's bytes
(signature included), a config application/vnd.oci.image.config.v1+json,
and the annotation org.opencontainers.image.revision holding the bundle's
revision. It prints the manifest's digest. The same bundle gives the same
digest: the manifest holds no time of its own.

REF is host[:port]/repository:tag, or ...@sha256:DIGEST (the digest push
would print); a REF with both a tag and a digest is refused. FILE is read as eval --bundle reads it before anything is
sent: a file that is not a bundle hcp-rego built is refused. The blobs are
stored first and the tag moves last, so a failed push leaves the tag where
it was. Credentials come from the Docker config ($DOCKER_CONFIG, else
~/.docker/config.json, and its credential helpers). --plain-http talks to
a registry without TLS.

DIR, a sharded build's folder (build --shards N -o DIR), is pushed whole:
each bundle under a tag derived from REF's, which must be a tag (the
policy bundle at REF, shard K at REF's repository with the tag TAG-shard-K,
the bundle's name in a sidecar's configuration after REF's tag; a tag past
OCI's 128 characters is refused). Every file of DIR is checked before
anything is sent: DIR must hold hcp.tar.gz and shard-K.tar.gz for each K
below the N its policy bundle names, and nothing else. Every bundle's
blobs and manifest are stored before any tag moves; then the shards' tags
move, the policy bundle's last. It prints one line a bundle: its name, its
reference, its manifest's digest and its revision. A bundle that did not
change keeps its digest.`,
		Example: `  hcp-rego build testdata/packs --grants testdata/grants/acme.json -o hcp.tar.gz --revision "$(git rev-parse HEAD)"
  hcp-rego push hcp.tar.gz registry.example.com/policy/hcp:prod
  hcp-rego build testdata/packs --grants testdata/grants/acme.json --shards 8 -o shards --signing-key testdata/keys/rsa.key
  hcp-rego push shards registry.example.com/policy/hcp:prod`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.file, o.ref = args[0], args[1]
			return runPush(cmd.Context(), s, o)
		},
	}
	cmd.Flags().BoolVar(&o.plainHTTP, "plain-http", false, "talk HTTP, not HTTPS, to the registry")
	addBundleLimitFlag(cmd.Flags(), &o.bundle.limit)
	addTimeoutFlag(cmd.Flags(), &o.timeout)
	return cmd
}

func runPush(ctx context.Context, s streams, o pushOptions) error {
	ref, err := oci.ParseReference(o.ref)
	if err != nil {
		return badInput(err)
	}
	if info, err := os.Stat(o.file); err == nil && info.IsDir() {
		return runPushFolder(ctx, s, o, ref)
	}
	b, data, err := o.bundle.reader().ReadFile(o.file)
	if err != nil {
		return badInput(err)
	}
	ctx, cancel, err := withTransferTimeout(ctx, o.timeout)
	if err != nil {
		return badInput(err)
	}
	defer cancel()
	digest, err := oci.Remote{PlainHTTP: o.plainHTTP}.Push(ctx, ref, data, b.Manifest.Revision)
	if err != nil {
		return badInput(timedOut(ctx, o.timeout, err))
	}
	_, err = fmt.Fprintln(s.out, digest)
	return err
}
