package rego_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// TestRuntimeModuleCannotReplaceBundleModule checks that a runtime's
// module named as a module of the bundle is refused: OPA would load it in
// place of the bundle's (the decision library's gate, say).
func TestRuntimeModuleCannotReplaceBundleModule(t *testing.T) {
	b, err := compile.Compile(exampleModel(t), "")
	if err != nil {
		t.Fatal(err)
	}
	name := b.Modules[0].Path
	_, err = hcprego.New(context.Background(), b, hcprego.WithModule(name, "package hcp.ext\n"))
	if err == nil || !strings.HasPrefix(err.Error(), name+": a module of the bundle has this name") {
		t.Errorf("error %v; want one naming %s as a module of the bundle", err, name)
	}
	if _, err := hcprego.New(context.Background(), b, hcprego.WithModule("ext.rego", "package hcp.ext\n")); err != nil {
		t.Errorf("a runtime module of its own name: %v", err)
	}
}
