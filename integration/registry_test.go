package integration

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hcp-rego/hcp-rego/internal/syncbuf"
)

// The registry tests run the CNCF distribution registry, pinned as a tool
// in its own module so that its cloud-storage dependencies stay out of
// ours, and hcp-rego itself, built once.
const registryModFile = "../tools/registry/go.mod"

var registryPath = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "tool", "-modfile="+registryModFile, "-n", "registry").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%w: %s", err, ee.Stderr)
		}
		return "", fmt.Errorf("go tool -modfile=%s -n registry: %w", registryModFile, err)
	}
	return strings.TrimSpace(string(out)), nil
})

// hcpRegoDir holds the hcp-rego binary that the tests run; TestMain
// removes it.
var hcpRegoDir string

var hcpRegoPath = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "hcp-rego-integration-*")
	if err != nil {
		return "", err
	}
	hcpRegoDir = dir
	path := filepath.Join(dir, "hcp-rego")
	if out, err := exec.Command("go", "build", "-o", path, "../cmd/hcp-rego").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ../cmd/hcp-rego: %w\n%s", err, out)
	}
	return path, nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if hcpRegoDir != "" {
		os.RemoveAll(hcpRegoDir)
	}
	os.Exit(code)
}

// registryUser and registryPassword are the one account of the registry
// that requires credentials; registryHash is the password's bcrypt hash,
// as its htpasswd file holds it.
const (
	registryUser     = "fleet"
	registryPassword = "fleet-test-password"
	registryHash     = "$2a$05$03OnuPKh1rGz6Eyr3tDraeSDs4mJ2UriPc8sHu0oew4BGo3jpmQwO"
)

// registry is one distribution registry on a loopback port, with its
// storage in memory.
type registry struct {
	addr string // host:port
	logs *syncbuf.Buffer
}

// startRegistry starts a registry that stops when the test ends; with
// auth, it takes only registryUser's credentials (htpasswd). A port taken
// between freeAddr and the registry's bind is retried on another.
func startRegistry(t *testing.T, auth bool) *registry {
	t.Helper()
	path, err := registryPath()
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		r := &registry{addr: freeAddr(t), logs: &syncbuf.Buffer{}}
		cmd := exec.Command(path, "serve", registryConfig(t, r.addr, auth))
		cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none")
		cmd.Stdout, cmd.Stderr = r.logs, r.logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-done
			}
			if t.Failed() {
				t.Logf("registry %s log:\n%s", r.addr, tail(r.logs.String(), 4000))
			}
		})
		if r.listening(done) {
			return r
		}
		if !strings.Contains(r.logs.String(), "address already in use") {
			t.Fatalf("the registry exited:\n%s", r.logs)
		}
	}
	t.Fatal("no free loopback port for the registry after 3 tries")
	return nil
}

// listening waits until the registry listens, false when it exits first.
func (r *registry) listening(done <-chan struct{}) bool {
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		if conn, err := net.Dial("tcp", r.addr); err == nil {
			conn.Close()
			return true
		}
		select {
		case <-done:
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return false
}

// registryConfig writes the registry's configuration: in-memory storage,
// quiet logs, and with auth an htpasswd file.
func registryConfig(t *testing.T, addr string, auth bool) string {
	t.Helper()
	config := fmt.Sprintf(`version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  inmemory: {}
http:
  addr: %s
  secret: not-a-secret-only-one-instance
`, addr)
	if auth {
		htpasswd := writeFile(t, "htpasswd", []byte(registryUser+":"+registryHash+"\n"))
		config += fmt.Sprintf("auth:\n  htpasswd:\n    realm: hcp-rego-test\n    path: %s\n", htpasswd)
	}
	return writeFile(t, "registry.yml", []byte(config))
}

// dockerConfig writes a Docker config folder (for DOCKER_CONFIG) that
// holds user's password for the registry at addr; an empty user gives a
// config with no credentials.
func dockerConfig(t *testing.T, addr, user, password string) string {
	t.Helper()
	auths := map[string]any{}
	if user != "" {
		auths[addr] = map[string]string{"auth": base64.StdEncoding.EncodeToString([]byte(user + ":" + password))}
	}
	data, err := json.Marshal(map[string]any{"auths": auths})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cliResult is how a run of hcp-rego ended.
type cliResult struct {
	code           int
	stdout, stderr string
}

// hcpRego runs hcp-rego with args and the Docker config folder
// dockerDir, never the user's own.
func hcpRego(t *testing.T, dockerDir string, args ...string) cliResult {
	t.Helper()
	path, err := hcpRegoPath()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), "DOCKER_CONFIG="+dockerDir, "HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		res.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return res
}

// must fails the test unless the run exited 0, and returns its stdout.
func (r cliResult) must(t *testing.T, what string) string {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("%s: exit %d\n%s", what, r.code, r.stderr)
	}
	return r.stdout
}

// refused fails the test unless the run exited 2 with one line on stderr
// holding want and nothing on stdout.
func (r cliResult) refused(t *testing.T, what, want string) {
	t.Helper()
	// One problem: its line, and a hint on a line of its own under it
	// where it has one (a key that did not sign).
	problems := strings.Count(r.stderr, "\n") - strings.Count(r.stderr, "\n  hint: ")
	if r.code != 2 || r.stdout != "" || problems != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", what, r.code, r.stdout, r.stderr, want)
	}
}
