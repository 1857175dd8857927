// Package rego holds hcp-rego's decision library (the hcp.authz Rego
// modules, embedded) and the embedded evaluator that decides calls with
// OPA's rego package against an assembled bundle.
package rego

import (
	"embed"
	"io/fs"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/compile"
)

//go:embed *.rego
var library embed.FS

// LibraryPath is where the library's modules go in a bundle.
const LibraryPath = "hcp/authz/"

// Library returns the modules of the decision library, sorted by path.
func Library() []compile.Module {
	names, _ := fs.Glob(library, "*.rego")
	slices.Sort(names)
	var mods []compile.Module
	for _, name := range names {
		if strings.HasSuffix(name, "_test.rego") {
			continue
		}
		src, _ := library.ReadFile(name)
		mods = append(mods, compile.Module{Path: LibraryPath + name, Source: src})
	}
	return mods
}
