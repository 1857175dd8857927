//go:build !linux

package bundles

import (
	"errors"
	"io/fs"
	"os"
)

// exchange puts the folder src at dst: where the system has no exchange
// of two names, by two renames (exchangeByRenames).
func exchange(src, dst string) error {
	if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(src, dst)
	}
	return exchangeByRenames(src, dst)
}
