package bundles

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// Files returns the files of b as a bundle directory holds them, by
// slash-separated path: each module at its path, the data under each root
// as <root>/data.json, and .manifest. `opa run --bundle DIR` and
// `opa build --bundle DIR` read them as the bundle b. A signed bundle has
// no directory form here: its signature covers data.json at the top.
func Files(b *bundle.Bundle) (map[string][]byte, error) {
	if len(b.Signatures.Signatures) > 0 {
		return nil, errors.New("a signed bundle is written as a .tar.gz only")
	}
	files := map[string][]byte{}
	for _, m := range b.Modules {
		files[strings.TrimPrefix(m.Path, "/")] = m.Raw
	}
	var roots []string
	if b.Manifest.Roots != nil {
		roots = *b.Manifest.Roots
	}
	if err := dataFiles(files, b.Data, roots); err != nil {
		return nil, err
	}
	manifest, err := json.MarshalIndent(b.Manifest, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode .manifest: %w", err)
	}
	files[".manifest"] = append(manifest, '\n')
	return files, nil
}

// dataFiles adds <root>/data.json for each root under which data holds a
// value, after checking that data holds nothing outside the roots.
func dataFiles(files map[string][]byte, data map[string]any, roots []string) error {
	if err := insideRoots(data, nil, roots); err != nil {
		return err
	}
	for _, root := range roots {
		value, ok := lookup(data, root)
		if !ok {
			continue
		}
		text, err := json.Marshal(value)
		if err != nil {
			return fmt.Errorf("encode data of root %s: %w", root, err)
		}
		files[strings.TrimPrefix(root+"/data.json", "/")] = append(text, '\n')
	}
	return nil
}

// insideRoots refuses data at a path that no root covers.
func insideRoots(node map[string]any, prefix []string, roots []string) error {
	for _, key := range slices.Sorted(maps.Keys(node)) {
		path := strings.Join(append(slices.Clone(prefix), key), "/")
		if slices.Contains(roots, path) || slices.Contains(roots, "") {
			continue
		}
		child, isObject := node[key].(map[string]any)
		if !isObject || !slices.ContainsFunc(roots, func(r string) bool { return strings.HasPrefix(r, path+"/") }) {
			return fmt.Errorf("data %s is outside the bundle's roots", path)
		}
		if err := insideRoots(child, append(slices.Clone(prefix), key), roots); err != nil {
			return err
		}
	}
	return nil
}

// lookup returns the value at a slash-separated path of data.
func lookup(data map[string]any, path string) (any, bool) {
	if path == "" {
		return data, len(data) > 0
	}
	var value any = data
	for _, key := range strings.Split(path, "/") {
		node, ok := value.(map[string]any)
		if !ok {
			return nil, false
		}
		if value, ok = node[key]; !ok {
			return nil, false
		}
	}
	return value, true
}

// WriteDir writes b as a bundle directory at dir (see Files). It writes a
// temporary sibling directory and renames it into place, so on any error
// nothing is written and an existing dir is untouched. An existing dir is
// replaced only when it is empty or a bundle directory that WriteDir
// wrote, never some other folder that -o happened to name.
func WriteDir(dir string, b *bundle.Bundle) (err error) {
	files, err := Files(b)
	if err != nil {
		return fmt.Errorf("write %s: %w", dir, err)
	}
	target, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", dir, err)
	}
	exists, err := replaceable(target)
	if err != nil {
		return fmt.Errorf("write %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(target), tempPattern(target))
	if err != nil {
		return fmt.Errorf("write %s: %w", dir, problem.Pathless(err))
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err = writeTree(tmp, files); err != nil {
		return fmt.Errorf("write %s: %w", dir, err)
	}
	if err = swap(tmp, target, exists); err != nil {
		return fmt.Errorf("write %s: %w", dir, err)
	}
	return nil
}

// writeTree writes files below root, which it makes world-readable.
func writeTree(root string, files map[string][]byte) error {
	for _, path := range slices.Sorted(maps.Keys(files)) {
		full := filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, files[path], 0o644); err != nil {
			return err
		}
	}
	return os.Chmod(root, 0o755)
}

// replaceable reports whether target exists, and refuses a target that
// is not a directory, or not empty and not a bundle directory of ours.
func replaceable(target string) (bool, error) {
	info, err := os.Lstat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, problem.Pathless(err)
	}
	if !info.IsDir() {
		return false, errors.New("exists and is not a directory")
	}
	entries, err := os.ReadDir(target)
	if err != nil {
		return false, problem.Pathless(err)
	}
	if len(entries) > 0 && !ours(target) {
		return false, errors.New("exists and is not a bundle directory that hcp-rego wrote; remove it or choose another")
	}
	return true, nil
}

// ours reports whether dir holds a .manifest whose metadata names hcp.
func ours(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, ".manifest"))
	if err != nil {
		return false
	}
	var m struct {
		Metadata map[string]any `json:"metadata"`
	}
	return json.Unmarshal(data, &m) == nil && m.Metadata["hcp"] != nil
}

// swap renames tmp to target. An existing target is first moved aside and
// put back if the second rename fails, then removed. Once the new folder is
// in place the write has succeeded: removing the old one is best effort
// (the new folder is not to be reported as unwritten because the old
// one, which nothing reads any more, could not be removed).
func swap(tmp, target string, exists bool) error {
	if !exists {
		return os.Rename(tmp, target)
	}
	old := tmp + ".old"
	if err := os.Rename(target, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, target); err != nil {
		if undo := os.Rename(old, target); undo != nil {
			return fmt.Errorf("%w (the previous directory is at %s)", err, old)
		}
		return err
	}
	_ = os.RemoveAll(old)
	return nil
}
