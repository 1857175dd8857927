package main

// The release image has no base, so no /etc/ssl/certs: this bundle of
// Mozilla's roots is what push, pull, status and replay --bundle REF
// verify a registry's or a sidecar's TLS certificate with there. Go uses
// it only where the system offers no roots; anywhere else the system's
// own roots, and SSL_CERT_FILE, apply as before.
import _ "golang.org/x/crypto/x509roots/fallback"
