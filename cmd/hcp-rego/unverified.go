package main

import (
	"fmt"
	"io"

	"github.com/hcp-rego/hcp-rego/internal/policy"
	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// noteUnverified says on w of each bundle of p read with no
// --verification-key that is signed that its signature went unchecked:
// a sidecar refuses a signed bundle it has no key for, so a silent local
// run would vouch for what no sidecar loads.
func noteUnverified(w io.Writer, p *policy.Policy) {
	for _, name := range p.SignedUnverified() {
		fmt.Fprintf(w, "note: %s is signed and its signature was not checked (a sidecar refuses a signed bundle it has no key for): give --verification-key, and --verification-key-id unless the key id is \"default\", to check it as a sidecar does\n",
			printable.Quote(name))
	}
}
