package source

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ReadFile reads a whole input file, refusing directories, missing files
// and files over MaxFileBytes with an Error that names the file.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: Describe(err, "no such file")}
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	if info.IsDir() {
		return nil, &Error{File: path, Msg: "is a directory, want a file"}
	}
	return ReadStream(f, path)
}

// ReadStream reads a whole input from r (standard input, say), named name
// in errors, refusing one over MaxFileBytes as ReadFile does.
func ReadStream(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, &Error{File: name, Msg: "read: " + Pathless(err).Error()}
	}
	if len(data) > MaxFileBytes {
		return nil, &Error{File: name, Msg: fmt.Sprintf("file is larger than the limit of %d MiB", MaxFileBytes>>20)}
	}
	return data, nil
}

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

// ReadJSON reads and parses one JSON input file, with the run's budget
// (see ParseJSON).
func ReadJSON(path string, budget *Budget) (*Node, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseJSON(path, data, budget)
}
