// Package bundles, one of hcp-rego's three API packages (with compile and
// rego), packs the compiler's output (compile.Compile: an OPA
// bundle of the decision library, the pack modules and the grant tables)
// into a .tar.gz with OPA's bundle package, signs it, writes it atomically
// and byte-identically, and reads a bundle back with signature
// verification, within limits on its size counted as it is read, refusing
// what an OPA sidecar would read differently (docs/bundles.md). It holds
// the roots of the bundle hcp-rego builds (Roots), which compile writes
// and a read holds a bundle to, and the provenance its manifest names
// (Provenance), which a read holds to the list of sources in its data. It
// imports neither compile nor rego: it knows bundles, not what is in them.
package bundles
