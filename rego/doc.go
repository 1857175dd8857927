// Package rego is hcp-rego's embedded evaluator: it decides calls with
// OPA's rego package against a bundle, compile.Compile's output or one
// read back from a file, with a runtime's own hcp.ext rules beside it
// (--ext). The decision library itself is package rego/library.
package rego
