package discover

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WalkLinks walks root as filepath.WalkDir does (fn sees each file and
// folder, in lexical order, and may skip a folder), and also follows
// symbolic links to folders, the root's too: a folder that a link puts in
// the tree holds packs and tests like any other, and discovery must not
// pass over them. Each folder is walked once, whatever the links that
// lead to it, so a link back up ends there. A link to nothing is passed
// to fn as the link it is. A link to a folder outside root's own tree is
// not followed, so that what a repository holds bounds the walk (a link
// to / would walk the machine): fn gets it with errLinkOutside, which
// discovery reports.
func WalkLinks(root string, fn fs.WalkDirFunc) error {
	info, err := os.Stat(root)
	if err == nil {
		var real string
		if real, err = filepath.EvalSymlinks(root); err == nil {
			real, err = filepath.Abs(real)
		}
		if err == nil {
			w := &linkWalk{fn: fn, root: real, met: map[folderKey][]os.FileInfo{}}
			err = w.walk(root, fs.FileInfoToDirEntry(info), info)
		}
	}
	if err != nil && info == nil {
		err = fn(root, nil, err)
	}
	if errors.Is(err, filepath.SkipDir) || errors.Is(err, filepath.SkipAll) {
		return nil
	}
	return err
}

// linkWalk is one walk of WalkLinks: fn, the real path of the root's
// tree, and the folders met.
type linkWalk struct {
	fn   fs.WalkDirFunc
	root string
	met  map[folderKey][]os.FileInfo
}

// errLinkOutside is WalkLinks' error for a link to a folder outside the
// tree it walks.
var errLinkOutside = errors.New("a link to a folder outside the PATH, which is not followed: give its target as a PATH of its own")

// inside reports whether the link at path leads to a folder in w's tree.
func (w *linkWalk) inside(path string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(w.root, real)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// folderKey narrows the folders met that one could be (os.SameFile then
// decides, by device and inode).
type folderKey struct{ size, mtime int64 }

// walked reports whether the folder info was walked before.
func (w *linkWalk) walked(info os.FileInfo) bool {
	for _, m := range w.met[keyOf(info)] {
		if os.SameFile(m, info) {
			return true
		}
	}
	return false
}

// record marks the folder info as walked.
func (w *linkWalk) record(info os.FileInfo) {
	w.met[keyOf(info)] = append(w.met[keyOf(info)], info)
}

func keyOf(info os.FileInfo) folderKey {
	return folderKey{info.Size(), info.ModTime().UnixNano()}
}

// walk visits path, whose entry is d (a link's target's, for a link to a
// folder) and, for a folder, info.
func (w *linkWalk) walk(path string, d fs.DirEntry, info os.FileInfo) error {
	if !d.IsDir() {
		return w.fn(path, d, nil)
	}
	if w.walked(info) {
		return nil
	}
	if err := w.fn(path, d, nil); err != nil {
		return folderSkipped(err) // not walked: a link to it with another name may be
	}
	w.record(info)
	entries, err := os.ReadDir(path)
	if err != nil {
		return folderSkipped(w.fn(path, d, err))
	}
	for _, e := range entries {
		err := w.entry(filepath.Join(path, e.Name()), e)
		if errors.Is(err, filepath.SkipDir) {
			return nil // a file's SkipDir skips the rest of its folder
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// folderSkipped is fn's answer for a folder, SkipDir being done: that
// folder is not walked, and the walk goes on.
func folderSkipped(err error) error {
	if errors.Is(err, filepath.SkipDir) {
		return nil
	}
	return err
}

// entry walks one entry of a folder, following a link to a folder.
func (w *linkWalk) entry(path string, e fs.DirEntry) error {
	if e.Type()&fs.ModeSymlink != 0 {
		target, err := os.Stat(path)
		switch {
		case err != nil || !target.IsDir():
			return w.fn(path, e, nil)
		case !w.inside(path):
			return w.fn(path, e, &fs.PathError{Op: "follow", Path: path, Err: errLinkOutside})
		}
		return w.walk(path, fs.FileInfoToDirEntry(target), target)
	}
	if !e.IsDir() {
		return w.fn(path, e, nil)
	}
	info, err := e.Info()
	if err != nil {
		return w.fn(path, e, err)
	}
	return w.walk(path, e, info)
}
