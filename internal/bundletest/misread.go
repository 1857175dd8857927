package bundletest

import (
	"bytes"
	"maps"
	"slices"

	"github.com/open-policy-agent/opa/v1/bundle"
)

// Misread is one way to change a bundle hcp-rego built into one that an
// OPA sidecar reads differently from the embedded evaluator
// (docs/bundles.md, "What a sidecar would read differently"),
// which every command that reads a bundle must refuse.
type Misread struct {
	Name string
	// Words are what hcp-rego's refusal says, after "bundle refused: ".
	Words string
	// change changes b, a copy: it replaces what it changes (the roots,
	// the module list, the data's top level), never edits it in place.
	change func(b *bundle.Bundle)
}

// wasmModule is the smallest WebAssembly module: its magic and version.
var wasmModule = []byte("\x00asm\x01\x00\x00\x00")

// Misreads are the changes: roots that are not ours, WebAssembly, and a
// module or data outside the roots.
var Misreads = []Misread{
	{"roots wider than ours", `manifest roots ["hcp","hcp_packs","hcp_grants"] are not hcp-rego's (hcp/authz, hcp_packs, hcp_grants; or, a sharded build's, hcp/authz, hcp_packs, hcp_grants/base)`,
		func(b *bundle.Bundle) { b.Manifest.Roots = &[]string{"hcp", "hcp_packs", "hcp_grants"} }},
	{"no roots", `manifest roots [""] (all of data: what a manifest without roots has) are not hcp-rego's`,
		func(b *bundle.Bundle) { b.Manifest.Roots = nil }},
	{"the runtime's root among ours", `manifest roots ["hcp/authz","hcp_packs","hcp_grants","hcp/ext"] are not hcp-rego's`,
		func(b *bundle.Bundle) {
			b.Manifest.Roots = &[]string{"hcp/authz", "hcp_packs", "hcp_grants", "hcp/ext"}
		}},
	{"a WebAssembly module", "hcp/authz/policy.wasm is a WebAssembly module",
		func(b *bundle.Bundle) {
			b.WasmModules = []bundle.WasmModuleFile{{Path: "/hcp/authz/policy.wasm", Raw: wasmModule}}
		}},
	{"a wasm entry in the manifest", ".manifest's wasm entry gives hcp/authz/allow to the WebAssembly module policy.wasm",
		func(b *bundle.Bundle) {
			b.WasmModules = []bundle.WasmModuleFile{{Path: "/policy.wasm", Raw: wasmModule}}
			b.Manifest.WasmResolvers = []bundle.WasmResolver{{Entrypoint: "hcp/authz/allow", Module: "/policy.wasm"}}
		}},
	{"a module outside the roots", "manifest roots [hcp/authz hcp_packs hcp_grants] do not permit 'package other' in module '/other/x.rego'",
		func(b *bundle.Bundle) {
			b.Modules = append(slices.Clip(b.Modules), bundle.ModuleFile{Path: "/other/x.rego", Raw: []byte("package other\n\nx := 1\n")})
		}},
	{"data outside the roots", "manifest roots [hcp/authz hcp_packs hcp_grants] do not permit data at path '/other'",
		func(b *bundle.Bundle) {
			b.Data = maps.Clone(b.Data)
			b.Data["other"] = map[string]any{"y": 1}
		}},
}

// Tarball returns good, a bundle hcp-rego built (unsigned), with the
// change made, written with OPA's writer as bundles.Encode writes.
func (m Misread) Tarball(good *bundle.Bundle) ([]byte, error) {
	b := *good
	m.change(&b)
	var buf bytes.Buffer
	if err := bundle.NewWriter(&buf).DisableFormat(true).UseModulePath(true).Write(b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
