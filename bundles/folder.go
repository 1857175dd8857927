package bundles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// PolicyFile is the policy bundle's name in a sharded build's folder
// (docs/fleet.md); shard K's is ShardFile(K).
const PolicyFile = "hcp.tar.gz"

// ShardFile is the name of shard k's bundle in a sharded build's folder.
func ShardFile(k int) string { return "shard-" + strconv.Itoa(k) + ".tar.gz" }

// shardFileName matches the names ShardFile gives.
var shardFileName = regexp.MustCompile(`^shard-(0|[1-9][0-9]{0,3})\.tar\.gz$`)

// IsShardFile reports whether name is one ShardFile gives, and which.
func IsShardFile(name string) (int, bool) {
	m := shardFileName.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	k, _ := strconv.Atoi(m[1])
	return k, k < MaxShards
}

// FolderWriter writes a sharded build's folder as a whole: its files go
// into a hidden temporary folder beside it, which Commit puts in its
// place. Until then the folder is as it was; on an error, Abort leaves it
// so and removes the temporary folder.
type FolderWriter struct {
	dir, tmp string
}

// NewFolderWriter starts writing dir. A folder already there must hold
// only what a sharded build writes (PolicyFile, shard files): replacing
// it replaces all of it, and `-o $HOME` must not.
func NewFolderWriter(dir string) (*FolderWriter, error) {
	if err := checkReplaceable(dir); err != nil {
		return nil, fmt.Errorf("write %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), tempPattern(filepath.Clean(dir)))
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", dir, problem.Pathless(err))
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it 0700
		os.Remove(tmp)
		return nil, fmt.Errorf("write %s: %w", dir, problem.Pathless(err))
	}
	return &FolderWriter{dir: filepath.Clean(dir), tmp: tmp}, nil
}

// checkReplaceable refuses a dir that is there and is not a folder of a
// sharded build's files alone.
func checkReplaceable(dir string) error {
	info, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return problem.Pathless(err)
	case !info.IsDir():
		return errors.New("not a folder: a sharded build writes a folder")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return problem.Pathless(err)
	}
	for _, e := range entries {
		_, shard := IsShardFile(e.Name())
		if !e.Type().IsRegular() || (e.Name() != PolicyFile && !shard) {
			return fmt.Errorf("the folder holds %s, which a sharded build does not write: it replaces the whole folder, so it writes only into a new one or one of its own", strconv.Quote(e.Name()))
		}
	}
	return nil
}

// Write writes one file of the folder.
func (w *FolderWriter) Write(name string, data []byte) error {
	if err := os.WriteFile(filepath.Join(w.tmp, name), data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(w.dir, name), problem.Pathless(err))
	}
	return nil
}

// Commit puts the written folder in place of dir, whose old files, if
// any, go: at one moment a reader of dir sees the old folder, at the next
// the new one (exchange).
func (w *FolderWriter) Commit() error {
	if err := syncDir(w.tmp); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", w.dir, err)
	}
	if err := checkReplaceable(w.dir); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", w.dir, err)
	}
	if err := exchange(w.tmp, w.dir); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", w.dir, renameCause(err))
	}
	// After the exchange tmp holds the old files, or nothing.
	return os.RemoveAll(w.tmp)
}

// Abort removes what was written; dir is as it was.
func (w *FolderWriter) Abort() { os.RemoveAll(w.tmp) }

// syncDir flushes a folder's files and names, so that after a crash the
// folder put in place holds every file whole.
func syncDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return problem.Pathless(err)
	}
	for _, e := range append(entries, nil) {
		path := dir
		if e != nil {
			path = filepath.Join(dir, e.Name())
		}
		f, err := os.Open(path)
		if err != nil {
			return problem.Pathless(err)
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return problem.Pathless(err)
		}
	}
	return nil
}
