package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/printable"
)

type buildOptions struct {
	packFlags
	output   string
	revision string
	shards   int
	signing  bundles.Signing
}

func newBuildCommand(s streams) *cobra.Command {
	var o buildOptions
	cmd := &cobra.Command{
		Use:   "build [PACK_DIR...] [--grants FILE]... (-o FILE.tar.gz [--revision R] | --shards N -o DIR) [--signing-key FILE ...]",
		Short: "Build the OPA bundle (.tar.gz) for sidecars, optionally signed",
		Long: `Build lints and compiles the packs and grant files into a standard OPA
bundle: the hcp.authz decision library (its only Rego), the packs' rows as
data.hcp_packs, the grant tables as data.hcp_grants with the sha256 of each
source file beside them (data.hcp_grants.base.sources), and a .manifest with the
revision, the roots hcp/authz, hcp_packs and hcp_grants (hcp/ext is left
to the runtime), rego_version 1 and metadata.hcp (the number of packs and
of source files, and the sha256 of that list, which eval --bundle, pull and
push check). The revision defaults to a digest of that content.

The same inputs give a byte-identical bundle (a PS256 or ES* signature is
randomized by its algorithm, so a bundle signed so differs in
.signatures.json only). The bundle is written to a temporary file beside
FILE and renamed: a failed build writes nothing and leaves FILE as it was.
FILE must not be an input (a pack's file, a grant file, the signing key),
nor lie inside a pack folder read.

--shards N (2 to 4096) writes a sharded build into the folder DIR
instead (docs/fleet.md): hcp.tar.gz, the library, the rows and the grants
without a tenant, and shard-K.tar.gz for each K below N, the grants of
the tenants whose shard is K (hcp-rego shard prints it). Each is signed
alike, its revision a digest of its contents, and the folder is written
as a whole: a folder already there must hold only such files.

--signing-key signs the bundle with OPA's .signatures.json: a PEM private
key, or for HS256 a file holding the shared secret. --signing-alg is one of
` + strings.Join(bundles.Algorithms(), ", ") + ` (default RS256);
--signing-key-id is the key id the signature names (default "default").`,
		Example: `  hcp-rego build testdata/packs --grants testdata/grants/acme.json -o hcp.tar.gz
  opa run --server --bundle hcp.tar.gz --bundle testdata/ext
  hcp-rego build testdata/packs --grants testdata/grants/acme.json -o signed.tar.gz --revision "$(git rev-parse HEAD)" \
    --signing-key testdata/keys/rsa.key --signing-alg RS256 --signing-key-id hcp
  hcp-rego build testdata/packs --grants testdata/grants/acme.json --shards 8 -o shards`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.packs = args
			return runBuild(s, o)
		},
	}
	addPackFlags(cmd.Flags(), &o.packFlags)
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "the bundle file to write (required)")
	cmd.Flags().StringVar(&o.revision, "revision", "", "the bundle's revision (default: a digest of its content)")
	cmd.Flags().IntVar(&o.shards, "shards", 0, "write a sharded build of N shards (2 to 4096) into the folder -o (docs/fleet.md)")
	cmd.Flags().StringVar(&o.signing.KeyFile, "signing-key", "", "sign with this PEM private key (or HS256 secret file)")
	emptyHint(cmd, "signing-key", "the bundle would go unsigned")
	cmd.Flags().StringVar(&o.signing.Algorithm, "signing-alg", "", "the signing algorithm: "+strings.Join(bundles.Algorithms(), "|")+" (default RS256)")
	cmd.Flags().StringVar(&o.signing.KeyID, "signing-key-id", "", `the key id the signature names (default "default")`)
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

func runBuild(s streams, o buildOptions) error {
	if !utf8.ValidString(o.revision) {
		return badInput(fmt.Errorf("--revision %s: not valid UTF-8", strconv.Quote(o.revision)))
	}
	signing, err := signingOf(o.signing)
	if err != nil {
		return badInput(err)
	}
	opts := compile.BuildOptions{Packs: o.packs, Grants: o.grants, Output: o.output, Revision: o.revision, Signing: signing, Limits: o.sources.limits()}
	if o.shards != 0 {
		return runBuildShards(s, opts, o.shards)
	}
	built, err := compile.Build(opts)
	if err != nil {
		return badInput(err)
	}
	fmt.Fprintf(s.out, "wrote %s: revision %s, %d packs, %d grants%s\n", printable.Quote(o.output), printable.Quote(built.Revision), built.Packs, built.Grants, signedNote(signing))
	noteReadLimit(s.err, built.Terms, bundles.DefaultLimits.Terms)
	return nil
}

// runBuildShards writes a sharded build's folder and says what it wrote.
func runBuildShards(s streams, opts compile.BuildOptions, n int) error {
	if opts.Revision != "" {
		return badInput(errors.New("--revision and --shards: a sharded build's revisions are digests of each bundle's contents, so that a change to one tenant's grants changes one shard's revision"))
	}
	built, err := compile.BuildShards(opts, n)
	if err != nil {
		return badInput(err)
	}
	fmt.Fprintf(s.out, "wrote %s: %s revision %s, %d shards, %d packs, %d grants%s\n", printable.Quote(opts.Output), bundles.PolicyFile, printable.Quote(built.Revision), len(built.Shards), built.Packs, built.Grants, signedNote(opts.Signing))
	return nil
}

// noteReadLimit notes when the bundle's modules hold more terms than limit,
// the terms that eval --bundle, pull and replay --bundle read by default
// (docs/bundles.md; OPA itself loads the bundle), and what
// --max-bundle-bytes lets them read it. Counting costs some 30 ms for the
// modules of a 3,000-pack set.
func noteReadLimit(w io.Writer, terms, limit int64) {
	if terms <= limit {
		return
	}
	fmt.Fprintf(w, "note: the bundle's modules hold %d terms, more than the %d that eval --bundle, pull and replay --bundle read by default; give them --max-bundle-bytes %s or more (OPA loads it as it is)\n",
		terms, limit, sizeText(sizeFor(terms)))
}

// sizeFor is the least --max-bundle-bytes in whole MiB that reads terms
// terms: a 256th of it (bundles.BytesPerTerm), and never fewer than the
// smallest size reads (bundles.LimitsOf).
func sizeFor(terms int64) int64 {
	if terms <= bundles.LimitsOf(minBundleLimit).Terms {
		return minBundleLimit
	}
	return (terms*bundles.BytesPerTerm + 1<<20 - 1) >> 20 << 20
}

// signingOf returns the signing the flags ask for, nil for none, and
// refuses --signing-alg or --signing-key-id without --signing-key: a
// bundle meant to be signed is never written unsigned. (An empty
// --signing-key is refused with every empty flag value, strictFlags.)
func signingOf(s bundles.Signing) (*bundles.Signing, error) {
	if s.KeyFile != "" {
		return &s, nil
	}
	if s.Algorithm != "" || s.KeyID != "" {
		return nil, errors.New("--signing-alg and --signing-key-id need --signing-key")
	}
	return nil, nil
}

func signedNote(s *bundles.Signing) string {
	if s == nil {
		return ""
	}
	alg, id := s.Algorithm, s.KeyID
	if alg == "" {
		alg = bundles.DefaultAlgorithm
	}
	if id == "" {
		id = bundles.DefaultKeyID
	}
	return fmt.Sprintf(", signed %s by key id %q", alg, id)
}
