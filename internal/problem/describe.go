package problem

import (
	"errors"
	"io/fs"
)

// Describe says in plain words, without the path, why a file or folder
// could not be opened, read or walked: missing (such as "no such file")
// when it is not there, else "permission denied" or the system's words.
func Describe(err error, missing string) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return missing
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
