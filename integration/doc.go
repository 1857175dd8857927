// Package integration holds the tests that load hcp-rego's bundles into a
// real OPA, the one pinned by the tool line in go.mod (`go tool opa`):
// `opa run --server` with our bundle beside a runtime bundle, bundle
// polling from an HTTP server with ETags, signed bundles, and `opa check`
// and `opa fmt` over every module. They run with `go test ./...`; an OPA
// that cannot be built fails them, it never skips them.
package integration
