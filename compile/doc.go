// Package compile is hcp-rego's compiler, one of its three API packages
// (with rego and bundles). It reads packs (manifest.json + policy.json)
// and grant sets and validates them against the embedded JSON Schemas
// (Load, Open: the Sources), lints them for the coverage and consistency
// rules of docs/files.md (Sources.Lint), checks them into a Model
// (Sources.Check, or Checked), and compiles that checked model, and
// nothing else, into its whole output (Compile): the decision library, a
// Rego module a pack and the grant lookup tables, as an OPA bundle that
// package bundles writes and package rego decides with.
//
// Build does all of it in one call, as `hcp-rego build` does: check,
// compile, sign and write the bundle atomically. Every problem of a run is
// reported at once, each at its file:line:col.
package compile
