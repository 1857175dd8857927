package document

import (
	"fmt"
	"io"
	"os"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// ReadFile reads a whole input file, refusing directories, missing files
// and files over MaxFileBytes with a problem.Error that names the file.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &problem.Error{File: path, Msg: problem.Describe(err, "no such file")}
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, &problem.Error{File: path, Msg: err.Error()}
	}
	if info.IsDir() {
		return nil, &problem.Error{File: path, Msg: "is a directory, want a file"}
	}
	return ReadStream(f, path)
}

// ReadStream reads a whole input from r (standard input, say), named name
// in errors, refusing one over MaxFileBytes as ReadFile does.
func ReadStream(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, &problem.Error{File: name, Msg: "read: " + problem.Pathless(err).Error()}
	}
	if len(data) > MaxFileBytes {
		return nil, &problem.Error{File: name, Msg: fmt.Sprintf("file is larger than the limit of %d MiB", MaxFileBytes>>20)}
	}
	return data, nil
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
