// Package rego is hcp-rego's embedded evaluator, one of its three API
// packages (with compile and bundles): it decides calls (Decide) and lists
// what a principal may do in a pack (Permissions) with OPA's rego package,
// against a bundle (compile.Compile's output, or one read back with
// package bundles), with a runtime's own hcp.ext rules beside it (ReadExt,
// WithModule), exactly as a sidecar loaded with the same bundles does.
// The decision library itself is package rego/library.
package rego
