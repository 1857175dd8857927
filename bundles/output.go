package bundles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CheckOutput refuses an output path (`-o`) that would replace or write
// into one of inputs, the files and folders a run reads
// (docs/reliability.md, "An output never replaces an input"): an output
// that is an input, lies inside an input folder at any depth, or is
// a folder that holds an input. Files and folders are compared by
// identity (os.SameFile), so that a hard link, a symbolic link, "..", a
// symbolically linked folder and an output that does not exist yet all
// count. Every command that writes -o calls it before writing anything.
//
// An empty output (standard output) or input is none. An input that
// cannot be looked up now is passed over: the run has read it, or
// reports why it could not.
func CheckOutput(output string, inputs []string) error {
	if output == "" {
		return nil
	}
	out := locate(output)
	var nearest *collision
	for _, in := range inputs {
		if in == "" {
			continue
		}
		c := out.collision(in)
		if c != nil && (nearest == nil || c.kind < nearest.kind) {
			nearest = c
		}
	}
	if nearest == nil {
		return nil
	}
	return fmt.Errorf("write %s: %s %s", output, nearest.kind, nearest.input)
}

// collisionKind says how an output meets an input, the most direct first.
type collisionKind int

const (
	isInput     collisionKind = iota // the output is the input
	insideInput                      // the output lies inside the input folder
	holdsInput                       // the input lies inside the output folder
)

func (k collisionKind) String() string {
	return [...]string{"is the input", "lies inside the input folder", "holds the input"}[k]
}

// collision is an input that an output would replace or write into.
type collision struct {
	kind  collisionKind
	input string
}

// location is where a write to a path goes: the file or folder there, if
// any, and the folders above it that are there. A path is followed as the
// system follows it (".." after a symbolic link leads to the parent of the
// link's target) and as cleaned text (".." drops the name before it, as
// filepath.Abs does), since a writer may take either way: both count.
type location struct {
	selves  []os.FileInfo
	folders []os.FileInfo
}

// locate looks up path, both ways, and every folder above it.
func locate(path string) location {
	var l location
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	for _, p := range []string{path, abs} {
		if info, err := os.Stat(p); err == nil {
			l.selves = append(l.selves, info)
		}
		real := resolved(p, 0)
		for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
			if info, err := os.Stat(dir); err == nil && info.IsDir() {
				l.folders = append(l.folders, info)
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return l
}

// within reports whether info is this location (same) or a folder above
// it (inside).
func (l location) within(info os.FileInfo) (same, inside bool) {
	for _, self := range l.selves {
		if os.SameFile(self, info) {
			return true, false
		}
	}
	if !info.IsDir() {
		return false, false
	}
	for _, f := range l.folders {
		if os.SameFile(f, info) {
			return false, true
		}
	}
	return false, false
}

// collision is how the output at l meets the input path in, or nil.
func (l location) collision(in string) *collision {
	info, err := os.Stat(in)
	if err != nil {
		return nil
	}
	same, inside := l.within(info)
	switch {
	case same:
		return &collision{kind: isInput, input: in}
	case inside:
		return &collision{kind: insideInput, input: in}
	}
	// Only a folder holds an input: when the output is none, looking the
	// input's folders up (a dozen calls to the system for each of a
	// thousand packs' files) cannot find it there.
	if !slices.ContainsFunc(l.selves, os.FileInfo.IsDir) {
		return nil
	}
	input := locate(in)
	for _, self := range l.selves {
		if _, holds := input.within(self); holds {
			return &collision{kind: holdsInput, input: in}
		}
	}
	return nil
}

// maxLinkHops bounds the symbolic links that resolved follows through
// links to nothing, as the system bounds a lookup (ELOOP).
const maxLinkHops = 40

// resolved is path made absolute with every symbolic link resolved as the
// system resolves it, also when its last names are not there yet: those
// are put after the real path of what is there, and a link to nothing is
// followed to where it points, as a write through it would go.
func resolved(path string, hops int) string {
	if !filepath.IsAbs(path) {
		if wd, err := os.Getwd(); err == nil {
			path = wd + string(filepath.Separator) + path
		}
	}
	real, err := filepath.EvalSymlinks(path)
	switch {
	case err == nil:
		return real
	case !errors.Is(err, fs.ErrNotExist):
		// A link loop, or a file taken for a folder: no write gets
		// through, and the writer says why.
		return filepath.Clean(path)
	}
	dir, name := splitLast(path)
	if dir == "" || name == "." || name == ".." {
		// Past a name that is not there, ".." fails in the system too.
		return filepath.Clean(path)
	}
	parent := resolved(dir, hops)
	full := filepath.Join(parent, name)
	if target, err := os.Readlink(full); err == nil && hops < maxLinkHops {
		if !filepath.IsAbs(target) {
			target = parent + string(filepath.Separator) + target
		}
		return resolved(target, hops+1)
	}
	return full
}

// splitLast splits path before its last name, without cleaning it (which
// would take "link/.." for "."): "a/b/../c/" is "a/b/.." and "c". The
// folder is "" when there is none above the name.
func splitLast(path string) (dir, name string) {
	path = strings.TrimRight(path, string(filepath.Separator))
	i := strings.LastIndexByte(path, filepath.Separator)
	switch {
	case i < 0:
		return "", path
	case i == 0:
		return string(filepath.Separator), path[1:]
	}
	return path[:i], path[i+1:]
}
