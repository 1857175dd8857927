package bundles

import "os"

// exchangeByRenames swaps src and dst by three renames through a name
// beside them: for a moment dst is not there, but it never holds a mix of
// old and new files, and on an error the old folder is put back.
func exchangeByRenames(src, dst string) error {
	old := src + ".old"
	if err := os.Rename(dst, old); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		_ = os.Rename(old, dst)
		return err
	}
	return os.Rename(old, src)
}
