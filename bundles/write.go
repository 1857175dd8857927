package bundles

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// Build signs b (compile.Compile's output), when signing is given, and
// encodes it: the bytes that `hcp-rego build` writes. The same bundle
// gives the same bytes (see Sign for the algorithms whose signatures
// differ from run to run).
func Build(b *bundle.Bundle, signing *Signing) ([]byte, error) {
	if signing != nil {
		if err := signing.Sign(b); err != nil {
			return nil, err
		}
	}
	return Encode(b)
}

// Encode serializes b as a gzipped tarball with OPA's bundle writer. The
// writer is given the modules unformatted (they are formatted already) and
// in sorted order, so the same bundle gives the same bytes.
func Encode(b *bundle.Bundle) ([]byte, error) {
	var buf bytes.Buffer
	if err := bundle.NewWriter(&buf).DisableFormat(true).UseModulePath(true).Write(*b); err != nil {
		return nil, fmt.Errorf("write bundle: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteFileAtomic writes data to path through a temporary file in the same
// folder and a rename: readers see the old file or the new one, and on any
// error the old file is untouched and no temporary file is left.
//
// A symbolic link is written through: the file it names is replaced and
// the link stays. Anything that is not a regular file (a folder, a device,
// a named pipe, a link to nothing) is refused and left as it was, so that
// `-o /dev/null` cannot turn a device into a file.
func WriteFileAtomic(path string, data []byte) error {
	dest, perm, err := writeTarget(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), tempPattern(dest))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, problem.Pathless(err))
	}
	if err := fill(tmp, data, perm); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, problem.Pathless(err))
	}
	if err = os.Rename(tmp.Name(), dest); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, renameCause(err))
	}
	return nil
}

// fill writes data to the new file f, gives it perm and closes it. The
// bytes are flushed before the caller's rename, so that after a crash the
// target holds the old bytes or the new ones, never an empty file.
func fill(f *os.File, data []byte, perm fs.FileMode) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// tempPattern names the temporary file or folder written beside target:
// hidden, after target, and short enough to fit beside any name the folder
// takes.
func tempPattern(target string) string { return HiddenPattern(target, "tmp") }

// HiddenPattern is the os.MkdirTemp or os.CreateTemp pattern of a
// temporary file or folder of the kind what (tmp, spill) beside target:
// ".TARGET.WHAT-*", hidden, with target's name cut to 64 bytes so that
// the name fits beside any name its folder takes.
func HiddenPattern(target, what string) string {
	base := filepath.Base(target)
	if len(base) > 64 {
		base = strings.ToValidUTF8(base[:64], "")
	}
	return "." + base + "." + what + "-*"
}

// writeTarget is the file a write to path replaces, and the permissions
// the new file takes: path itself when nothing is there (world-readable)
// or a regular file is (its own), or the regular file that a symbolic link
// at path names. Anything else is an error.
func writeTarget(path string) (string, fs.FileMode, error) {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, 0o644, nil
	}
	if err != nil {
		return "", 0, problem.Pathless(err)
	}
	dest := path
	if info.Mode()&fs.ModeSymlink != 0 {
		dest, err = filepath.EvalSymlinks(path)
		if errors.Is(err, fs.ErrNotExist) {
			return "", 0, errors.New("a symbolic link to nothing")
		}
		if err == nil {
			info, err = os.Stat(dest)
		}
		if err != nil {
			return "", 0, problem.Pathless(err)
		}
	}
	switch {
	case info.IsDir():
		return "", 0, errors.New("is a directory")
	case !info.Mode().IsRegular():
		return "", 0, errors.New("not a regular file")
	}
	return dest, info.Mode().Perm(), nil
}

// renameCause drops the paths from a rename error, one of which is the
// temporary file's random name.
func renameCause(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
