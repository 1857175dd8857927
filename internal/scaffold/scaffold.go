// Package scaffold writes the starting files of a new pack: its manifest
// and policy, a grant file and a case file, which lint, build and test
// green as written, and show each format at work (a read command, a
// confirm-gated write, a connect command, a trigger; role, scoped and
// default grants; allowed, gated and refused cases).
package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

//go:embed templates
var templates embed.FS

// File is one file of a scaffold: its path, slash-separated and relative
// to the folder it is written under, and its bytes.
type File struct {
	Path string
	Data []byte
}

// packID is a pack id as the manifest schema takes it.
var packID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// maxIDLen bounds a pack id so that its longest file name,
// ID.cases.yaml, fits the 255 bytes most file systems take; the manifest
// schema itself allows 255.
const maxIDLen = 255 - len(".cases.yaml")

// ErrBadID is returned for a name that is not a pack id.
var ErrBadID = errors.New(`want lowercase letters, digits, "_" and "-", starting with a letter or digit`)

// CheckID reports whether id is a pack id, as the manifest schema wants
// one, short enough to name the scaffold's files.
func CheckID(id string) error {
	if !packID.MatchString(id) {
		return fmt.Errorf("pack id %q: %w", id, ErrBadID)
	}
	if len(id) > maxIDLen {
		return fmt.Errorf("pack id of %d characters: at most %d, so that the case file's name (ID.cases.yaml) fits in 255 bytes", len(id), maxIDLen)
	}
	return nil
}

// Pack returns the files of a new pack id, laid out as a repository of
// packs keeps them: packs/ID/manifest.json and policy.json,
// grants/ID.json and cases/ID.cases.yaml, whose paths to the pack and
// the grants are relative to itself.
func Pack(id string) ([]File, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	layout := []struct{ template, path string }{
		{"manifest.json.tmpl", path.Join("packs", id, "manifest.json")},
		{"policy.json.tmpl", path.Join("packs", id, "policy.json")},
		{"grants.json.tmpl", path.Join("grants", id+".json")},
		{"cases.yaml.tmpl", path.Join("cases", id+".cases.yaml")},
	}
	files := make([]File, 0, len(layout))
	for _, l := range layout {
		data, err := render(l.template, id)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: l.path, Data: data})
	}
	return files, nil
}

// render fills template name with the pack id. The id is safe as written
// inside a JSON or a quoted YAML string: CheckID admits no quote,
// backslash or control character.
func render(name, id string) ([]byte, error) {
	t, err := template.ParseFS(templates, "templates/"+name)
	if err != nil {
		return nil, err
	}
	t.Option("missingkey=error")
	var buf bytes.Buffer
	if err := t.Execute(&buf, struct{ ID string }{id}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ExistsError is Write's refusal: files that are already there.
type ExistsError struct {
	Paths []string // as Write was given them, under its folder
}

func (e *ExistsError) Error() string {
	quoted := make([]string, len(e.Paths))
	for i, p := range e.Paths {
		quoted[i] = printable.Quote(p)
	}
	if len(quoted) > 0 {
		quoted[0] = printable.LineStart(e.Paths[0]) // the first starts the message's line
	}
	verb := "exists"
	if len(quoted) > 1 {
		verb = "exist"
	}
	return fmt.Sprintf("%s already %s; nothing written", strings.Join(quoted, ", "), verb)
}

// Write writes files under dir, refusing, before it writes anything, if
// any of them is there already (an ExistsError): a scaffold never
// replaces an author's file. Each file goes through a temporary file
// beside it and a rename; should one fail, the files and folders Write
// made are removed again, so that a failed run leaves dir as it was.
// It returns the paths written, under dir.
func Write(dir string, files []File) ([]string, error) {
	targets := make([]string, len(files))
	var exist []string
	for i, f := range files {
		targets[i] = filepath.Join(dir, filepath.FromSlash(f.Path))
		_, err := os.Lstat(targets[i])
		switch {
		case err == nil:
			exist = append(exist, targets[i])
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("write %s: %w", printable.Quote(targets[i]), problem.Pathless(err))
		}
	}
	if len(exist) > 0 {
		return nil, &ExistsError{Paths: exist}
	}
	var made []string // files and folders to remove on failure, innermost last
	for i, f := range files {
		if err := writeNew(targets[i], f.Data, &made); err != nil {
			for j := len(made) - 1; j >= 0; j-- {
				os.Remove(made[j])
			}
			return nil, fmt.Errorf("write %s: %w", printable.Quote(targets[i]), problem.Pathless(err))
		}
	}
	return targets, nil
}

// writeNew writes data to target through a temporary file and a rename,
// making its folders first, and appends what it made to made.
func writeNew(target string, data []byte, made *[]string) error {
	if err := mkdirs(filepath.Dir(target), made); err != nil {
		return err
	}
	base := filepath.Base(target)
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+base[:min(len(base), 64)]+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone once renamed; left over only on failure
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	*made = append(*made, target)
	return nil
}

// mkdirs makes dir and the folders above it that are missing, and appends
// each to made, outermost first.
func mkdirs(dir string, made *[]string) error {
	info, err := os.Stat(dir)
	if err == nil {
		if !info.IsDir() {
			return fmt.Errorf("%s is not a folder", printable.LineStart(dir))
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirs(parent, made); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	*made = append(*made, dir)
	return nil
}
