package document

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// ReadFile reads a whole input file, refusing directories, missing files
// and files over MaxFileBytes with a problem.Error that names the file.
func ReadFile(path string) ([]byte, error) {
	f, _, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadStream(f, path)
}

// open opens an input file and returns its size, refusing directories
// and missing files with a problem.Error that names the file.
func open(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, &problem.Error{File: path, Msg: problem.Describe(err, "no such file")}
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, &problem.Error{File: path, Msg: err.Error()}
	}
	if info.IsDir() {
		f.Close()
		return nil, 0, &problem.Error{File: path, Msg: "is a directory, want a file"}
	}
	return f, info.Size(), nil
}

// ReadSource reads a whole input file as ReadFile does, its bytes counted
// in the run's (Limits.Bytes of budget) as they are read: a file past the
// run's limit is refused at the line and column of its first byte past
// it, the limit named, and read no further. fileLimit, when not 0, bounds
// the file alone, which is refused as ReadFile refuses one over
// MaxFileBytes.
func ReadSource(path string, budget *Budget, fileLimit int64) ([]byte, error) {
	f, size, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCounted(path, f, size, budget, fileLimit, 0)
}

// readCounted reads f, the file at path of about size bytes, to its end,
// as ReadSource reads it; its first counted bytes are in the run's count
// already (a stream of it counted them).
func readCounted(path string, f io.Reader, size int64, budget *Budget, fileLimit, counted int64) ([]byte, error) {
	if fileLimit > 0 {
		size = min(size, fileLimit)
	}
	if budget.bytes.limit > 0 {
		size = min(size, budget.bytes.limit)
	}
	// One more byte than the file holds, so that the read that meets
	// its end needs no larger buffer.
	data := make([]byte, 0, size+1)
	for {
		if len(data) == cap(data) {
			data = slices.Grow(data, readChunk)
		}
		n, err := f.Read(data[len(data):min(cap(data), len(data)+readChunk)])
		if n > 0 {
			if fileLimit > 0 && int64(len(data)+n) > fileLimit {
				return nil, &problem.Error{File: path, Msg: fmt.Sprintf("file is larger than the limit of %d MiB", fileLimit>>20)}
			}
			free := int(max(0, min(int64(n), counted-int64(len(data)))))
			if got := int(budget.bytes.take(int64(n - free))); got < n-free {
				past := len(data) + free + got
				// Told from the bytes up to it, however the file was
				// read: a character may go on past it.
				return nil, &problem.Error{File: path, Pos: PosAt(data[:past+1], past), Msg: budget.overBytes()}
			}
			data = data[:len(data)+n]
		}
		switch {
		case err == io.EOF:
			return data, nil
		case err != nil:
			return nil, &problem.Error{File: path, Msg: "read: " + problem.Pathless(err).Error()}
		}
	}
}

// readChunk is what ReadSource reads, and counts, at a time.
const readChunk = 1 << 20

// overBytes is the refusal of a file past the run's limit of bytes.
func (b *Budget) overBytes() string {
	msg := "more bytes than the limit of " + sizeWords(b.bytes.limit) + " for the files of one run"
	if b.hint != "" {
		msg += "; " + b.hint
	}
	return msg
}

// sizeWords writes n bytes as "512 MiB", or "1000 bytes" when it is not a
// whole number of MiB.
func sizeWords(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
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
