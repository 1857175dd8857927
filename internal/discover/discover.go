// Package discover finds what a run reads under its paths: the packs
// (folders holding policy.json), grant files (any other *.json whose top
// level has a "grants" member), decision case files and Rego unit tests.
// It follows symbolic links to folders within a path's own tree, each
// folder once, and refuses a link out of it; it reads paths as the system
// does (Tidy, SamePath).
package discover

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// isPackDir reports whether dir holds a pack's policy.json or
// manifest.json, or why that cannot be told (a folder that can be listed
// but not entered): a pack must not vanish without a word.
func isPackDir(dir string) (bool, error) {
	for _, name := range []string{"policy.json", "manifest.json"} {
		path := filepath.Join(dir, name)
		info, err := os.Stat(path)
		switch {
		case err == nil && !info.IsDir():
			return true, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return false, err
		case err != nil && isLink(path):
			return false, &fs.PathError{Op: "stat", Path: path, Err: errLinkToNothing}
		}
	}
	return false, nil
}

// errLinkToNothing is a symbolic link whose target is not there.
var errLinkToNothing = errors.New("a link to nothing")

// isLink reports whether path is a symbolic link itself.
func isLink(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && info.Mode()&fs.ModeSymlink != 0
}

// skipDir reports whether discovery passes over a folder: hidden ones and
// those whose names start with "_" (as the go tool does), where a
// repository keeps inputs that are bad on purpose.
func skipDir(root, path string, d fs.DirEntry) bool {
	name := d.Name()
	return path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_"))
}

// PackDirs resolves command-line PACK_DIR arguments: a folder that holds a
// policy.json or manifest.json is a pack; any other folder stands for the
// packs found below it. No argument means ".".
func PackDirs(args []string) ([]string, error) {
	if len(args) == 0 {
		args = []string{"."}
	}
	var dirs []string
	var errs problem.Errors
	for _, arg := range args {
		info, err := os.Stat(arg)
		var pack bool
		if err == nil && info.IsDir() {
			if pack, err = isPackDir(arg); err != nil {
				errs.Merge(arg, walkProblem(arg, err))
				continue
			}
		}
		switch {
		case err != nil:
			errs.Add(arg, problem.Pos{}, "%s", problem.Describe(err, "no such pack folder"))
		case !info.IsDir():
			errs.Add(arg, problem.Pos{}, "is a file, want a pack folder")
		case pack:
			dirs = append(dirs, Tidy(arg))
		default:
			found, err := findPacks(arg)
			errs.Merge(arg, err)
			if err == nil && len(found) == 0 {
				errs.Add(arg, problem.Pos{}, "no pack (a folder with policy.json) here or below")
			}
			dirs = append(dirs, found...)
		}
	}
	return OnceEach(dirs), errs.Err()
}

// OnceEach drops the paths that name a file or folder named before, as
// overlapping arguments do (`lint packs packs/ledger`), keeping the first
// spelling.
func OnceEach(paths []string) []string {
	seen := make(map[string]bool, len(paths))
	return slices.DeleteFunc(paths, func(path string) bool {
		key := SamePath(path)
		if seen[key] {
			return true
		}
		seen[key] = true
		return false
	})
}

// Tidy is path cleaned ("./g.json" is "g.json", "a//b" is "a/b") when
// the cleaned path names the same file. Cleaning is only text: after a
// symbolic link, "link/../g.json" is a file beside the link's target, so
// such a path is that file's path with the links of its folders resolved
// (every later filepath.Join would clean it as text again). Its last name
// is kept as it is: a link there is still the link that path names, which
// --ext refuses (docs/decisions.md#evaluating-one-call-eval).
func Tidy(path string) string {
	clean := filepath.Clean(path)
	if clean == path || SamePath(clean) == SamePath(path) {
		return clean
	}
	dir, name := filepath.Split(path)
	if name == "." || name == ".." || name == "" {
		dir, name = path, ""
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(real, name)
	}
	return path
}

// Tidied tidies each path (Tidy) in place.
func Tidied(paths []string) []string {
	for i, path := range paths {
		paths[i] = Tidy(path)
	}
	return paths
}

// SamePath is a key that two spellings of one file share: its absolute
// path with every symbolic link resolved, so that "link/../g.json" is the
// file the system opens, not the text's parent folder.
func SamePath(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// findPacks walks root for pack folders. A folder it cannot tell about is
// a problem, and the walk goes on past it.
func findPacks(root string) ([]string, error) {
	var dirs []string
	var errs problem.Errors
	err := WalkLinks(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return skipUnreadable(root, path, d, err, &errs)
		}
		if !d.IsDir() {
			return nil
		}
		if skipDir(root, path, d) {
			return filepath.SkipDir
		}
		pack, err := isPackDir(path)
		if pack {
			dirs = append(dirs, path)
		}
		if pack || err != nil {
			errs.Merge(root, walkProblem(root, err))
			return filepath.SkipDir
		}
		return nil
	})
	errs.Merge(root, walkProblem(root, err))
	slices.Sort(dirs)
	return dirs, errs.Err()
}

// Found is what discovery finds under the PATHs of `hcp-rego test` and of
// `matrix --diff` (docs/tests.md).
type Found struct {
	Packs      []string
	GrantFiles []string
	CaseFiles  []string
	RegoTests  []string
	// Incomplete is set when a PATH or a folder below it could not be
	// walked, so that packs may be missing (see Sources.MarkPacksMissing).
	// A broken file is not a folder left unwalked.
	Incomplete bool

	errs problem.Errors
}

// Discover walks each root for packs, grant files (any other *.json whose
// top level has a "grants" array), case files (*.cases.yaml|yml|json) and
// Rego unit tests (*_test.rego), each listed once however the roots
// overlap, and Tidied as command-line paths are.
func Discover(roots []string) (*Found, error) {
	f := &Found{}
	var errs problem.Errors
	for _, root := range roots {
		if _, err := os.Stat(root); err != nil {
			errs.Add(root, problem.Pos{}, "%s", problem.Describe(err, "no such file or folder"))
			f.Incomplete = true
			continue
		}
		if err := WalkLinks(root, f.visit(root)); err != nil {
			errs.Merge(root, walkProblem(root, err))
			f.Incomplete = true
		}
	}
	errs = append(errs, f.errs...)
	for _, list := range []*[]string{&f.Packs, &f.GrantFiles, &f.CaseFiles, &f.RegoTests} {
		*list = OnceEach(Tidied(*list))
	}
	return f, errs.Err()
}

func (f *Found) visit(root string) fs.WalkDirFunc {
	return func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			f.Incomplete = true
			return skipUnreadable(root, path, d, err, &f.errs)
		}
		if d.IsDir() {
			if skipDir(root, path, d) {
				return filepath.SkipDir
			}
			pack, err := isPackDir(path)
			if pack {
				f.Packs = append(f.Packs, path)
			}
			if err != nil {
				f.errs.Merge(root, walkProblem(root, err))
				f.Incomplete = true
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		switch {
		case isCaseFile(name):
			f.CaseFiles = append(f.CaseFiles, path)
		case strings.HasSuffix(name, "_test.rego"):
			f.RegoTests = append(f.RegoTests, path)
		case name == "policy.json" || name == "manifest.json":
		case strings.HasSuffix(name, ".json"):
			ok, err := looksLikeGrantFile(path)
			if ok {
				f.GrantFiles = append(f.GrantFiles, path)
			}
			f.errs.Merge(path, err)
		}
		return nil
	}
}

// isCaseFile reports whether a file name is a decision case file's.
func isCaseFile(name string) bool {
	for _, ext := range []string{".cases.yaml", ".cases.yml", ".cases.json"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// looksLikeGrantFile reports whether a JSON file's top level has a grants
// array. A file that does not parse counts as a broken grant file when it
// mentions "grants", so that a typo cannot silently drop a grant set.
func looksLikeGrantFile(path string) (bool, error) {
	data, err := document.ReadFile(path)
	if err != nil {
		return false, err
	}
	root, err := document.ParseJSON(path, data, nil) // a file at a time, each dropped
	if err != nil {
		if bytes.Contains(data, []byte(`"grants"`)) {
			return false, err
		}
		return false, nil
	}
	return isGrantFile(root), nil
}

// walkProblem is a walk's error as a problem of the file or folder it
// names ("packs/a/policy.json: permission denied"), or of root.
func walkProblem(root string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		root = pe.Path
	}
	return &problem.Error{File: filepath.ToSlash(root), Msg: problem.Describe(err, "no such file or folder")}
}

// skipUnreadable records a folder below root that a walk could not read
// and skips it, so that the walk goes on; the root itself (d nil) ends it.
func skipUnreadable(root, path string, d fs.DirEntry, err error, errs *problem.Errors) error {
	if d == nil || path == root {
		return err
	}
	if skipDir(root, path, d) {
		return nil // passed over by its name: what it holds is not read
	}
	errs.Merge(root, walkProblem(root, err))
	if d.IsDir() {
		return filepath.SkipDir
	}
	return nil
}

// isGrantFile reports whether a parsed JSON document is a grant file by
// shape: an object with a "grants" member. A grant file holds a grants
// array (docs/reliability.md, "Discovery takes a grant file by content");
// a "grants" member of another type makes a broken grant file, which
// loading then reports, rather than a file silently passed over: a grant
// set dropped by a typo can change decisions (default grants take over).
func isGrantFile(root *document.Node) bool {
	return root.Field("grants") != nil
}
