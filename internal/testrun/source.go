package testrun

import (
	"maps"
	"path/filepath"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/discover"
)

// caseSources is the decision document doc as a case of the case file
// file compares it with want (docs/tests.md): the paths of a want's
// source.row and source.grant are relative to the case file, like its
// packs and grants, and the decision's are as the run gave them to the
// compiler (relative to the working directory). A source of doc that
// names the file and line the want's names is the want's text; any other
// is made relative to the case file's folder, so that a failure shows a
// path the author can write in the case. doc is left as it is; a want
// with no source leaves nothing to compare.
func caseSources(doc, want map[string]any, file string) map[string]any {
	got, ok := doc["source"].(map[string]any)
	if _, wanted := want["source"]; !ok || !wanted {
		return doc
	}
	wantSource, _ := want["source"].(map[string]any)
	dir := filepath.Dir(file)
	out := maps.Clone(got)
	for _, k := range []string{"row", "grant"} {
		g, ok := got[k].(string)
		if !ok {
			continue
		}
		if w, ok := wantSource[k].(string); ok && sameSource(dir, w, g) {
			out[k] = w
		} else {
			out[k] = relSource(dir, g)
		}
	}
	doc = maps.Clone(doc)
	doc["source"] = out
	return doc
}

// sameSource reports whether want, "path:line" relative to the folder
// dir, and got, "path:line" as the compiler was given it, name one line
// of one file: the same line, and paths that open the same file.
func sameSource(dir, want, got string) bool {
	wantPath, wantLine, ok := cutLine(want)
	gotPath, gotLine, ok2 := cutLine(got)
	if !ok || !ok2 || wantLine != gotLine || wantPath == "" {
		return false
	}
	if !filepath.IsAbs(wantPath) {
		// Joined as the system reads it, as a case file's packs are.
		wantPath = dir + string(filepath.Separator) + filepath.FromSlash(wantPath)
	}
	return discover.SamePath(wantPath) == discover.SamePath(gotPath)
}

// relSource is got, "path:line", with its path relative to the folder
// dir when it can be, in slashes.
func relSource(dir, got string) string {
	path, line, ok := cutLine(got)
	if !ok {
		return got
	}
	rel, err := filepath.Rel(discover.SamePath(dir), discover.SamePath(path))
	if err != nil {
		return got
	}
	return filepath.ToSlash(rel) + ":" + line
}

// cutLine splits "path:line" at its last colon.
func cutLine(s string) (path, line string, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}
