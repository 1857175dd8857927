// Package compare decides how two versions of a policy repository differ
// on every call that any principal could make (`hcp-rego compare`,
// docs/compare.md): for each command and trigger, a verdict (same,
// narrower, wider, mixed, added, removed) and an example call each way,
// decided by the Go reference evaluator on both versions.
//
// The space of calls is infinite, but the decision reads names only by
// equality, so it falls into finitely many classes that decide alike:
// universe.go and profile.go reduce principals to the pairs (held under
// OLD, held under NEW) they reach, holders.go finds every pair that some
// id, tenant and set of roles reaches without enumerating the sets,
// verdict.go crosses the pairs with the land facts and the confirm gate,
// and decide.go and example.go make and decide the examples.
// docs/compare.md gives the argument that the classes cover every call;
// the tests hold the verdicts to a brute force over every class.
package compare
