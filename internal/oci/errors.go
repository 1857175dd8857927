package oci

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// RegistryError is a push or pull that a registry, or the way to it,
// failed: its message is one line that names the registry and what
// failed ("push 127.0.0.1:5000/hcp:r1: registry 127.0.0.1:5000:
// authentication failed (401 Unauthorized)"). It holds no credential:
// oras-go puts none in its errors, and the registry's own words are cut
// short and made printable.
type RegistryError struct {
	Op       string // "push" or "pull"
	Ref      string // the REF, as given
	Registry string // host[:port]
	What     string // what failed
	Err      error  // the cause
}

func (e *RegistryError) Error() string {
	return fmt.Sprintf("%s %s: registry %s: %s", e.Op, e.Ref, e.Registry, e.What)
}

func (e *RegistryError) Unwrap() error { return e.Err }

// registryError explains err, from an operation op on ref.
func registryError(op string, ref Reference, err error) error {
	return &RegistryError{Op: op, Ref: quoted(ref.text), Registry: ref.Registry, What: what(err), Err: err}
}

// maxRegistryWords bounds what a registry's error text adds to a message.
const maxRegistryWords = 200

// what says, in a few words, what err means.
func what(err error) string {
	var resp *errcode.ErrorResponse
	var urlErr *url.Error
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, auth.ErrBasicCredentialNotFound):
		return "authentication failed: no credentials for it in the Docker config"
	case errors.As(err, &resp):
		return answered(resp)
	case errors.Is(err, errdef.ErrNotFound):
		return "not found"
	case errors.Is(err, content.ErrMismatchedDigest), errors.Is(err, content.ErrTrailingData),
		// oras-go's own words, untyped, for a manifest whose digest is
		// not the one the REF names.
		strings.Contains(err.Error(), "invalid response; digest mismatch"):
		return "it sent content that does not match its digest"
	case errors.Is(err, errdef.ErrSizeExceedsLimit):
		return "it sent a manifest larger than a bundle's can be"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.As(err, &dnsErr):
		return "cannot resolve its host name"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "cannot connect: connection refused"
	case errors.As(err, &certErr), errors.As(err, &unknownAuthority):
		return "its TLS certificate is not trusted"
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return "it answers plain HTTP, not HTTPS (--plain-http talks to a registry without TLS)"
	case errors.As(err, &urlErr):
		return "cannot reach it: " + oneLine(urlErr.Err.Error())
	}
	return oneLine(err.Error())
}

// answered explains an error status from the registry.
func answered(resp *errcode.ErrorResponse) string {
	status := fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	var words string
	if len(resp.Errors) > 0 {
		words = ": " + oneLine(resp.Errors.Error())
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return "authentication failed (" + status + ")" + words
	case http.StatusForbidden:
		return "access denied (" + status + ")" + words
	case http.StatusNotFound:
		return "not found (" + status + ")" + words
	}
	return fmt.Sprintf("%s %s answered %s%s", resp.Method, resp.URL.Path, status, words)
}

// oneLine is s on one line, short, with nothing unprintable.
func oneLine(s string) string { return printable.Line(s, maxRegistryWords) }
