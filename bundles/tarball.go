package bundles

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// ReadTarballFile reads the bytes of the bundle tarball at path, to be
// read with ReadTarball and then sent as they are (`push`). The archive
// may be at most twice lim.TotalBytes, as Read allows it: a larger one is
// refused with a *LimitError before it is read whole. A folder or
// anything that is not a regular file is refused.
func ReadTarballFile(path string, lim Limits) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", printable.LineStart(path), problem.Pathless(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", printable.LineStart(path), problem.Pathless(err))
	}
	switch {
	case info.IsDir():
		return nil, fmt.Errorf("%s: a folder, want the bundle's .tar.gz (hcp-rego build -o writes one)", printable.LineStart(path))
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("%s: not a regular file, want the bundle's .tar.gz", printable.LineStart(path))
	}
	limit := 2 * lim.TotalBytes
	over := &LimitError{Path: path, Limit: limit, Archive: true}
	if info.Size() > limit {
		return nil, over
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", printable.LineStart(path), problem.Pathless(err))
	}
	if int64(len(data)) > limit {
		return nil, over
	}
	if len(data) == 0 {
		return nil, errors.New(path + ": empty, want the bundle's .tar.gz")
	}
	return data, nil
}
