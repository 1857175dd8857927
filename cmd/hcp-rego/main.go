// Command hcp-rego compiles HCP pack policy rows and capability grants into
// Rego modules and OPA bundles, evaluates decisions locally, runs policy
// tests, and previews who gets what.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}
