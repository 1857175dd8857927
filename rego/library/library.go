// Package library holds hcp-rego's decision library, the hcp.authz Rego
// modules (docs/rego.md), embedded: the same for every bundle. It imports
// nothing of hcp-rego's, so that the compiler puts it in a bundle and the
// evaluator's tests read it without either depending on the other.
package library

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

//go:embed *.rego
var files embed.FS

// Path is where the library's modules go in a bundle.
const Path = "hcp/authz/"

// Module is one module of the library: its path in a bundle and its source.
type Module struct {
	Path   string
	Source []byte
}

// Modules returns the library's modules, sorted by path.
func Modules() []Module {
	names, _ := fs.Glob(files, "*.rego")
	slices.Sort(names)
	var mods []Module
	for _, name := range names {
		if strings.HasSuffix(name, "_test.rego") {
			continue
		}
		src, _ := files.ReadFile(name)
		mods = append(mods, Module{Path: Path + name, Source: src})
	}
	return mods
}
