package testrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/hcp-rego/hcp-rego/internal/discover"
	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// Debounce is how long a watch waits after the last change before it runs
// the tests again: an editor's save (write, rename, chmod) and a checkout
// of many files make one run, which starts well within 300 ms of the last
// change.
const Debounce = 150 * time.Millisecond

// Watch is the author's loop, as `opa test --watch` gives Rego authors: it
// runs the tests under o.Paths, then again each time a pack, grant file,
// case file or Rego file under them changes, once the changes have paused
// for Debounce. Each run writes its failures and the totals line to out
// (WriteFailures); a run that meets bad input writes its positioned errors
// to errs instead, and the watch goes on. Folders created later under a
// path are watched too. Watch returns nil when ctx is done (Ctrl-C), and
// an error only when a path cannot be watched at the start.
func Watch(ctx context.Context, o Options, out, errs io.Writer) error {
	w, err := newWatcher(o.Paths)
	if err != nil {
		return err
	}
	defer w.fs.Close()
	runOnce(ctx, o, out, errs)
	debounce(ctx, w.fs.Events, w.fs.Errors,
		func(ev fsnotify.Event) bool { return w.handle(ev, errs) },
		func(err error) { fmt.Fprintf(errs, "watch: %v\n", err) },
		func() {
			fmt.Fprintln(out) // a blank line between one run and the next
			runOnce(ctx, o, out, errs)
		})
	return nil
}

// debounce calls run once the events that call for a run (handle) have
// paused for Debounce, and again after each later pause, until ctx is
// done or the watcher closes. An error from the watcher (an overflowed
// event queue lost changes) is reported to lost, and calls for a run.
func debounce(ctx context.Context, events <-chan fsnotify.Event, failures <-chan error, handle func(fsnotify.Event) bool, lost func(error), run func()) {
	var fire <-chan time.Time
	timer := time.NewTimer(Debounce)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if handle(ev) {
				timer.Reset(Debounce)
				fire = timer.C
			}
		case err, ok := <-failures:
			if !ok {
				return
			}
			lost(err)
			timer.Reset(Debounce)
			fire = timer.C
		case <-fire:
			fire = nil
			run()
		}
	}
}

// runOnce runs the tests and writes what they found; a run cut short by
// the end of the watch writes nothing.
func runOnce(ctx context.Context, o Options, out, errs io.Writer) {
	report, err := Run(ctx, o)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		fmt.Fprintln(errs, err)
		return
	}
	if err := report.WriteFailures(out); err == nil {
		fmt.Fprintln(out, report.Totals())
	}
}

// watcher follows the folders under a watch's paths: each path that is a
// folder, with every folder below it that discovery enters, and the
// folder of each path that is a file (an editor saves by renaming into
// it).
type watcher struct {
	fs    *fsnotify.Watcher
	dirs  map[string]bool // folders watched with everything in them
	files map[string]bool // paths given that are files
}

func newWatcher(paths []string) (*watcher, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	w := &watcher{fs: fsw, dirs: map[string]bool{}, files: map[string]bool{}}
	for _, p := range paths {
		if err := w.addPath(filepath.Clean(p)); err != nil {
			fsw.Close()
			return nil, err
		}
	}
	return w, nil
}

// addPath watches one path given on the command line.
func (w *watcher) addPath(p string) error {
	info, err := os.Stat(p)
	if err != nil {
		return &problem.Error{File: p, Msg: "cannot watch: " + problem.Describe(err, "no such file or folder")}
	}
	if !info.IsDir() {
		w.files[p] = true
		if err := w.fs.Add(filepath.Dir(p)); err != nil {
			return fmt.Errorf("watch %s: %w", printable.Quote(p), err)
		}
		return nil
	}
	return w.addTree(p, true)
}

// addTree watches root and every folder below it that discovery enters
// (not those whose name starts with "." or "_"; those a link leads to
// too). A folder that cannot be watched is an error at the start
// (isRoot), and a message later.
func (w *watcher) addTree(root string, isRoot bool) error {
	var errs []error
	walkErr := discover.WalkLinks(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil // discovery reports unreadable files at each run
		}
		if p != root && skipped(d.Name()) {
			return filepath.SkipDir
		}
		if w.dirs[p] {
			return nil
		}
		if err := w.fs.Add(p); err != nil {
			errs = append(errs, fmt.Errorf("watch %s: %w", printable.Quote(p), err))
			return filepath.SkipDir
		}
		w.dirs[p] = true
		return nil
	})
	errs = append(errs, walkErr)
	if err := errors.Join(errs...); err != nil && isRoot {
		return err
	}
	return nil
}

// handle follows one change: a folder created under a watched one is
// watched in turn. It reports whether the change calls for a run: hidden
// files (an editor's .x.swp) and files no run reads do not.
func (w *watcher) handle(ev fsnotify.Event, errs io.Writer) bool {
	name := filepath.Clean(ev.Name)
	if w.files[name] {
		return !ev.Has(fsnotify.Chmod)
	}
	base := filepath.Base(name)
	if !w.dirs[filepath.Dir(name)] || ev.Op == fsnotify.Chmod || strings.HasPrefix(base, ".") {
		return false
	}
	if ev.Has(fsnotify.Create) {
		if info, err := os.Stat(name); err == nil && info.IsDir() {
			if skipped(base) {
				return false
			}
			if err := w.addTree(name, true); err != nil {
				fmt.Fprintln(errs, err)
			}
			return true
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		delete(w.dirs, name) // the kernel drops its watch
		if filepath.Ext(name) == "" {
			return true // a folder, perhaps, with tests in it
		}
	}
	return tested(name)
}

// skipped reports whether discovery skips a folder of this name, as
// discover.Discover does.
func skipped(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// tested reports whether a file may be one a run reads: a pack's
// policy.json or manifest.json, a grant file, a case file, a Rego test or
// a runtime's Rego rules that a case file names.
func tested(name string) bool {
	switch filepath.Ext(name) {
	case ".json", ".yaml", ".yml", ".rego":
		return true
	}
	return false
}
