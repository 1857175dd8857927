// Package oci publishes hcp-rego's bundles to OCI registries and fetches
// them back (docs/fleet.md), in the one layout that OPA's `oci` service
// type downloads (OPA's v1/download/oci_download.go): an image manifest
// whose layer of media type application/vnd.oci.image.layer.v1.tar+gzip
// holds the bundle tarball as built, with the bundle's revision in the
// org.opencontainers.image.revision annotation.
//
// The registry protocol, the credentials (the Docker config and its
// credential helpers) and the manifest are oras-go's; this package picks
// the layout, keeps the manifest reproducible, and turns what a registry
// answers into one plain line that never holds a secret.
package oci

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/retry"
)

// The media types and the annotation of docs/fleet.md (push), as OPA reads
// them.
const (
	// LayerMediaType is the bundle layer's: OPA takes the first layer of
	// this type as the bundle.
	LayerMediaType = ocispec.MediaTypeImageLayerGzip
	// ConfigMediaType is the config blob's.
	ConfigMediaType = ocispec.MediaTypeImageConfig
	// RevisionAnnotation is the manifest annotation that holds the
	// bundle's revision.
	RevisionAnnotation = ocispec.AnnotationRevision
)

// Remote says how to reach a registry.
type Remote struct {
	// PlainHTTP talks HTTP instead of HTTPS; it is never the default.
	PlainHTTP bool
	// Credentials looks up a registry's credentials; nil means the
	// Docker config (DockerCredentials).
	Credentials auth.CredentialFunc
}

// Reference is a parsed REF: host[:port]/repository:tag or
// host[:port]/repository@sha256:DIGEST, as OPA's oci service reads it.
type Reference struct {
	registry.Reference
	text string
}

// String is the reference as given.
func (r Reference) String() string { return r.text }

// Quoted is the reference in quotes for a message, or a note that it is
// not shown when it could hold a secret.
func (r Reference) Quoted() string { return quoted(r.text) }

// ParseReference parses a REF. A reference without a tag or a digest is
// refused rather than taken for "latest", which OPA would not pull. A
// REF that does not parse is not echoed when it could hold a secret (a
// URL with user:password@).
func ParseReference(s string) (Reference, error) {
	parsed, err := registry.ParseReference(s)
	if err != nil {
		return Reference{}, fmt.Errorf("REF %s: want host[:port]/repository:tag or host[:port]/repository@sha256:DIGEST", quoted(s))
	}
	if parsed.Reference == "" {
		return Reference{}, fmt.Errorf("REF %s: no tag or digest: want host[:port]/repository:tag or host[:port]/repository@sha256:DIGEST", quoted(s))
	}
	if taggedAndDigested(s) {
		// The registry library keeps the digest and drops the tag: a push
		// would store the bundle, print its digest and move no tag.
		return Reference{}, fmt.Errorf("REF %s: both a tag and a digest: want host[:port]/repository:tag or host[:port]/repository@sha256:DIGEST", quoted(s))
	}
	return Reference{Reference: parsed, text: s}, nil
}

// taggedAndDigested reports whether REF s names a tag and a digest both
// (repository:tag@sha256:...): a ":" in its last path segment before "@".
func taggedAndDigested(s string) bool {
	name, _, digested := strings.Cut(s, "@")
	if !digested {
		return false
	}
	return strings.Contains(name[strings.LastIndex(name, "/")+1:], ":")
}

// safeRef is what a REF can hold and be echoed: no "@" before the first
// "/" (user:password@host), no scheme, nothing unprintable.
var safeRef = regexp.MustCompile(`^[A-Za-z0-9.\-_:\[\]]{1,255}(/[A-Za-z0-9._\-/:@]{0,512})?$`)

// quoted is s in quotes when it is safe to echo, else a note that it is
// not shown.
func quoted(s string) string {
	if safeRef.MatchString(s) && !strings.Contains(s, "://") {
		return fmt.Sprintf("%q", s)
	}
	return "(not shown: it looks like a URL or holds a user name)"
}

// DockerCredentials reads the Docker config as the docker CLI does
// ($DOCKER_CONFIG/config.json, else ~/.docker/config.json; credsStore and
// credHelpers run their credential helpers). A missing config means no
// credentials; a config that does not parse is an error that names it.
func DockerCredentials() (auth.CredentialFunc, error) {
	store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
	if err != nil {
		return nil, fmt.Errorf("read the Docker config: %w", err)
	}
	return credentials.Credential(store), nil
}

// Timeouts bound each step of a request, not a whole transfer, so that a
// large bundle may take its time while a registry that does not answer
// ends the run.
const (
	dialTimeout     = 10 * time.Second
	headerTimeout   = 60 * time.Second
	tlsTimeout      = 10 * time.Second
	maxManifestSize = 1 << 20 // our manifest is well under 1 KiB
)

// idleTimeout ends a transfer in which no byte moves, either way, for so
// long: a registry that stops in the middle of a body. (A variable, so
// that a test can wait less.)
var idleTimeout = 60 * time.Second

// idleConn is a connection whose every read and write must move within
// idle of the one before.
type idleConn struct {
	net.Conn
	idle time.Duration
}

func (c idleConn) Read(p []byte) (int, error) {
	c.Conn.SetDeadline(time.Now().Add(c.idle))
	return c.Conn.Read(p)
}

func (c idleConn) Write(p []byte) (int, error) {
	c.Conn.SetDeadline(time.Now().Add(c.idle))
	return c.Conn.Write(p)
}

// dial opens connections that end when idle for idleTimeout.
func dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{Timeout: dialTimeout}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return idleConn{Conn: c, idle: idleTimeout}, nil
}

// repository opens ref's repository with r's transport and credentials.
func (r Remote) repository(ref Reference) (*remote.Repository, error) {
	cred := r.Credentials
	if cred == nil {
		var err error
		if cred, err = DockerCredentials(); err != nil {
			return nil, err
		}
	}
	repo, err := remote.NewRepository(ref.Registry + "/" + ref.Repository)
	if err != nil {
		return nil, fmt.Errorf("REF %s: %w", quoted(ref.text), err)
	}
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dial,
		TLSHandshakeTimeout:   tlsTimeout,
		ResponseHeaderTimeout: headerTimeout,
		ForceAttemptHTTP2:     true,
	}
	repo.PlainHTTP = r.PlainHTTP
	repo.ManifestMediaTypes = manifestMediaTypes
	repo.MaxMetadataBytes = maxManifestSize
	repo.Client = &auth.Client{
		Client:     &http.Client{Transport: retry.NewTransport(transport)},
		Cache:      auth.NewCache(),
		Credential: cred,
		Header:     http.Header{"User-Agent": {"hcp-rego"}},
	}
	return repo, nil
}

// manifestMediaTypes are the manifests Pull accepts, as OPA's oci
// downloader does: image manifests and indexes, OCI's and Docker's.
var manifestMediaTypes = []string{
	ocispec.MediaTypeImageManifest,
	ocispec.MediaTypeImageIndex,
	"application/vnd.docker.distribution.manifest.v2+json",
	"application/vnd.docker.distribution.manifest.list.v2+json",
}

// errNotBundleManifest is Pull's error for a manifest without a bundle
// layer.
var errNotBundleManifest = errors.New("the manifest has no " + LayerMediaType + " layer: not a bundle")
