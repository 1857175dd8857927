// Package integration holds the tests that load hcp-rego's bundles into a
// real OPA, the one pinned by the tool line in go.mod (`go tool opa`):
// `opa run --server` with our bundle beside a runtime bundle, bundle
// polling from an HTTP server with ETags, signed bundles, and `opa check`
// and `opa fmt` over every module. The fleet tests add the CNCF
// distribution registry, pinned in tools/registry/go.mod, and hcp-rego's
// own binary: push, pull and status against sidecars that pull with OPA's
// oci service type. They run with `go test ./...`; an OPA or a registry
// that cannot be built fails them, it never skips them.
package integration
