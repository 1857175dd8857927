package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// binary is one built hcp-rego.
type binary struct {
	os, arch string
	path     string
}

// buildBinary cross-builds hcp-rego for platform ("os/arch") into
// dist/hcp-rego-OS-ARCH (.exe on Windows). The build is static
// (CGO_ENABLED=0) and reproducible: -trimpath, no VCS stamp, and the
// instruction-set levels fixed rather than taken from the environment, so
// the same source and Go give the same bytes on any machine.
func buildBinary(ctx context.Context, o options, platform string) (binary, error) {
	goos, goarch, _ := strings.Cut(platform, "/")
	name := "hcp-rego-" + goos + "-" + goarch
	if goos == "windows" {
		name += ".exe"
	}
	b := binary{os: goos, arch: goarch, path: filepath.Join(o.dist, name)}
	ldflags := fmt.Sprintf("-s -w -X main.version=%s -X main.commit=%s", o.version, o.commit)
	cmd := exec.CommandContext(ctx, goCommand(), "build", "-trimpath", "-buildvcs=false",
		"-ldflags", ldflags, "-o", b.path, "./cmd/hcp-rego")
	cmd.Dir = o.repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch,
		"GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=-mod=readonly")
	if out, err := cmd.CombinedOutput(); err != nil {
		return b, fmt.Errorf("build %s: %w\n%s", platform, err, out)
	}
	return b, nil
}

// goCommand is the go that runs this tool (make's $(GO) puts it first on
// PATH), else the first on PATH.
func goCommand() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// writeChecksums writes path in the format `sha256sum -c` reads: one line
// a file, the hex digest, two spaces and the file's name relative to the
// checksum file, sorted by name.
func writeChecksums(path string, built []binary) error {
	var lines []string
	for _, b := range built {
		data, err := os.ReadFile(b.path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		lines = append(lines, hex.EncodeToString(sum[:])+"  "+filepath.Base(b.path)+"\n")
	}
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[66:], b[66:]) })
	return writeFileAtomic(path, []byte(strings.Join(lines, "")))
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it over path, so that a reader never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// sourceDate is the time written into the image (its config's created,
// its files' modification times): SOURCE_DATE_EPOCH when set, as the
// reproducible-builds convention has it (make release sets the commit's
// time), else the Unix epoch, so the same binaries give the same digest.
func sourceDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil || sec < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: want seconds since 1970", s)
	}
	return time.Unix(sec, 0).UTC(), nil
}
