package integration

import (
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/bundletest"
)

// sidecarRefusals are what the pinned OPA says when it refuses to start
// on each change of bundletest.Misreads, loaded beside the runtime's
// bundle (root hcp/ext). A WebAssembly module that no wasm entry names is
// not here: OPA stores it and runs nothing of it, and hcp-rego refuses it
// all the same, since the manifest of the next revision may name it.
var sidecarRefusals = map[string]string{
	"roots wider than ours":         "detected overlapping roots in manifests for these bundles: [",
	"no roots":                      "specify empty root paths ('') which overlap with any other bundle root",
	"the runtime's root among ours": "root hcp/ext is in multiple bundles",
	"a wasm entry in the manifest":  "failed to initialize wasm module for entrypoints '[data.hcp.authz.allow]': engine not found",
	"a module outside the roots":    "do not permit 'package other' in module",
	"data outside the roots":        "do not permit data at path '/other'",
}

// TestSidecarRefusesMisreads starts `opa run --server` on each bundle that
// hcp-rego refuses because a sidecar would read it differently from the
// embedded evaluator (docs/bundles.md, "What a sidecar would read
// differently"), beside the runtime's bundle: OPA refuses
// to start, where the embedded evaluator, before hcp-rego refused these,
// decided with them; and hcp-rego's reader refuses each.
func TestSidecarRefusesMisreads(t *testing.T) {
	t.Parallel()
	good, err := compile.Compile(exampleModel(t, acme, defaults), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, mis := range bundletest.Misreads {
		want, ok := sidecarRefusals[mis.Name]
		if !ok {
			continue
		}
		t.Run(mis.Name, func(t *testing.T) {
			t.Parallel()
			data, err := mis.Tarball(good)
			if err != nil {
				t.Fatal(err)
			}
			file := writeFile(t, "hcp.tar.gz", data)
			s := startOPA(t, "--bundle", file, "--bundle", extDir)
			<-s.done
			if s.err == nil || !strings.Contains(s.logs.String(), want) {
				t.Errorf("OPA ended with %v, want an error %q:\n%s", s.err, want, tail(s.logs.String(), 2000))
			}
			_, err = bundles.ReadDecisionBundle(file, nil, bundles.DefaultLimits)
			if words := file + ": bundle refused: " + mis.Words; err == nil || !strings.HasPrefix(err.Error(), words) {
				t.Errorf("hcp-rego read it with %v, want %s...", err, words)
			}
		})
	}
}
