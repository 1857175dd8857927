// Command release builds what `make release` ships: hcp-rego for each
// platform, static and reproducible, a SHA256SUMS file beside them, and a
// multi-platform OCI image of the Linux binaries, which it writes as an OCI
// image layout and, when asked, pushes to a registry.
//
// It is its own module, as tools/registry is, so that go-containerregistry
// and what it brings (the Docker CLI's config reader, credential helpers)
// stay out of the graph of the hcp-rego module, whose users never build
// images.
//
//	go -C tools/release run . -repo ../.. -dist ../../dist -version v1.2.3 -commit $(git rev-parse HEAD) \
//	  [-platforms linux/amd64,...] [-image host/repo:tag [-plain-http]]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
)

// options are the tool's flags.
type options struct {
	repo      string   // the hcp-rego module's folder
	dist      string   // where the binaries, SHA256SUMS and the image layout go
	version   string   // stamped as main.version
	commit    string   // stamped as main.commit
	platforms []string // os/arch pairs to build
	image     string   // a reference to push the image to; "" pushes nothing
	plainHTTP bool     // allow HTTP to the registry
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// run parses args, builds every platform, writes the checksums and the
// image layout, and pushes the image when -image is given.
func run(ctx context.Context, args []string, out io.Writer) error {
	o, err := parseFlags(args)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.dist, 0o755); err != nil {
		return err
	}
	var built []binary
	for _, p := range o.platforms {
		b, err := buildBinary(ctx, o, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "built %s\n", b.path)
		built = append(built, b)
	}
	sums := filepath.Join(o.dist, "SHA256SUMS")
	if err := writeChecksums(sums, built); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s\n", sums)
	return releaseImage(ctx, o, built, out)
}

// releaseImage builds the image of the Linux binaries, writes it to
// dist/image as an OCI image layout and pushes it when asked.
func releaseImage(ctx context.Context, o options, built []binary, out io.Writer) error {
	created, err := sourceDate()
	if err != nil {
		return err
	}
	idx, err := buildIndex(built, imageMeta{version: o.version, commit: o.commit, created: created})
	if errors.Is(err, errNoLinux) && o.image == "" {
		return nil // nothing to put in an image, and none asked for
	}
	if err != nil {
		return err
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	layoutDir := filepath.Join(o.dist, "image")
	if err := writeLayout(layoutDir, idx, o.version); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s (OCI image layout, index %s)\n", layoutDir, digest)
	if o.image == "" {
		return nil
	}
	if err := push(ctx, o.image, idx, o.plainHTTP); err != nil {
		return err
	}
	fmt.Fprintf(out, "pushed %s@%s\n", o.image, digest)
	return nil
}

// defaultPlatforms are the release's: Linux, macOS and Windows on amd64
// and arm64.
const defaultPlatforms = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64"

func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.repo, "repo", "../..", "the hcp-rego module's folder")
	fs.StringVar(&o.dist, "dist", "../../dist", "the output folder")
	fs.StringVar(&o.version, "version", "dev", "the version to stamp (main.version)")
	fs.StringVar(&o.commit, "commit", "unknown", "the commit to stamp (main.commit)")
	platforms := fs.String("platforms", defaultPlatforms, "comma-separated os/arch pairs")
	fs.StringVar(&o.image, "image", "", "push the image to this reference (host[:port]/repository:tag)")
	fs.BoolVar(&o.plainHTTP, "plain-http", false, "talk to the registry over HTTP, not HTTPS")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.version == "" || o.commit == "" {
		return o, errors.New("-version and -commit must not be empty")
	}
	for _, p := range strings.Split(*platforms, ",") {
		if _, _, ok := strings.Cut(p, "/"); !ok {
			return o, fmt.Errorf("platform %q: want os/arch", p)
		}
		o.platforms = append(o.platforms, p)
	}
	var err error
	if o.repo, err = filepath.Abs(o.repo); err != nil {
		return o, err
	}
	o.dist, err = filepath.Abs(o.dist)
	return o, err
}
