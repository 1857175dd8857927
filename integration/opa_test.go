package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/syncbuf"
)

// Paths of the example inputs, relative to this package.
const (
	packs    = "../testdata/packs"
	acme     = "../testdata/grants/acme.json"
	defaults = "../testdata/grants/defaults.json"
	extDir   = "../testdata/ext"
	keys     = "../testdata/keys/"
)

// startTimeout bounds how long OPA may take to start and activate bundles.
const startTimeout = 20 * time.Second

var opaPath = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "tool", "-n", "opa").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%w: %s", err, ee.Stderr)
		}
		return "", fmt.Errorf("go tool -n opa: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
})

// opaBinary is the pinned OPA, built once by `go tool -n opa`. A build
// failure fails the test: these tests are never skipped.
func opaBinary(t *testing.T) string {
	t.Helper()
	path, err := opaPath()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// runOPA runs an OPA command to its end and returns its combined output.
func runOPA(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(opaBinary(t), args...).CombinedOutput()
	return string(out), err
}

// server is one `opa run --server` on a loopback port.
type server struct {
	url  string
	logs *syncbuf.Buffer
	done chan struct{} // closed when the process has exited
	err  error         // the process's end, once done is closed
}

// startOPA starts `opa run --server` with args on a free loopback port
// and stops it when the test ends. It waits until OPA listens (or exits),
// not for its bundles. A port taken between freeAddr and OPA's bind is
// retried on another.
func startOPA(t *testing.T, args ...string) *server {
	t.Helper()
	return startOPAWith(t, opaProcess{}, args...)
}

// opaProcess is where an OPA runs: its working folder and the variables
// it adds to the test's environment (for a configuration's ${...}).
type opaProcess struct {
	dir string
	env []string
}

// startOPAIn is startOPA with dir as OPA's working folder.
func startOPAIn(t *testing.T, dir string, args ...string) *server {
	t.Helper()
	return startOPAWith(t, opaProcess{dir: dir}, args...)
}

// startOPAWith is startOPA in the process p says.
func startOPAWith(t *testing.T, p opaProcess, args ...string) *server {
	t.Helper()
	for range 3 {
		s := launch(t, freeAddr(t), p, args)
		if !s.lostPort() {
			return s
		}
	}
	t.Fatal("no free loopback port for OPA after 3 tries")
	return nil
}

// launch starts one OPA on addr, as p says, and waits until it listens or
// exits.
func launch(t *testing.T, addr string, p opaProcess, args []string) *server {
	t.Helper()
	s := &server{url: "http://" + addr, logs: &syncbuf.Buffer{}, done: make(chan struct{})}
	all := append([]string{"run", "--server", "--addr", addr, "--log-level", "debug",
		"--shutdown-grace-period", "1"}, args...) // the default store, as docs/bundles.md advises
	cmd := exec.Command(opaBinary(t), all...)
	cmd.Dir = p.dir
	if p.env != nil {
		cmd.Env = append(os.Environ(), p.env...)
	}
	cmd.Stdout, cmd.Stderr = s.logs, s.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.err = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-s.done
		}
		if t.Failed() {
			t.Logf("OPA log, without the request lines:\n%s", tail(s.events(), 6000))
		}
	})
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			return s
		}
		select {
		case <-s.done:
			return s
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("OPA does not listen on %s after %v", addr, startTimeout)
	return nil
}

// lostPort reports whether OPA exited because its port was taken.
func (s *server) lostPort() bool {
	select {
	case <-s.done:
		return strings.Contains(s.logs.String(), "address already in use")
	default:
		return false
	}
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitFor polls cond until it holds, failing the test after timeout or
// when OPA has exited.
func (s *server) waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		select {
		case <-s.done:
			t.Fatalf("OPA exited (%v) while waiting for %s", s.err, what)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitHealthy waits until every configured bundle is activated.
func (s *server) waitHealthy(t *testing.T) {
	t.Helper()
	s.waitFor(t, "healthy bundles", startTimeout, s.healthy)
}

// healthy reports whether /health?bundles answers 200.
func (s *server) healthy() bool {
	resp, err := http.Get(s.url + "/health?bundles")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// query POSTs input to /v1/data/<path> and returns the result, nil when
// it is undefined, decoded with numbers as json.Number.
func (s *server) query(t *testing.T, path string, input any) any {
	t.Helper()
	body, err := json.Marshal(map[string]any{"input": input})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(s.url+"/v1/data/"+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return s.result(t, resp)
}

// get GETs /v1/data/<path> and returns the result, nil when undefined.
func (s *server) get(t *testing.T, path string) any {
	t.Helper()
	resp, err := http.Get(s.url + "/v1/data/" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return s.result(t, resp)
}

func (s *server) result(t *testing.T, resp *http.Response) any {
	t.Helper()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %s\n%s", resp.Request.Method, resp.Request.URL.Path, resp.Status, data)
	}
	var doc struct{ Result any }
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: %v\n%s", resp.Request.URL.Path, err, data)
	}
	return doc.Result
}

// revision is the activated revision of a named bundle, "" before any.
func (s *server) revision(t *testing.T, name string) string {
	t.Helper()
	rev, _ := s.get(t, "system/bundles/"+name+"/manifest/revision").(string)
	return rev
}

// exampleModel loads the example packs with the given grant files.
func exampleModel(t *testing.T, grants ...string) *compile.Model {
	t.Helper()
	m, err := compile.Checked([]string{packs}, grants)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// buildFile builds the bundle of m into a new file and returns its path.
func buildFile(t *testing.T, m *compile.Model, revision string, signing *bundles.Signing) string {
	t.Helper()
	b, err := compile.Compile(m, revision)
	if err != nil {
		t.Fatal(err)
	}
	data, err := bundles.Build(b, signing)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "hcp.tar.gz", data)
}

// writeFile writes data to a new file in a temporary folder.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// events is OPA's log without the lines of the REST requests it served.
func (s *server) events() string {
	var out strings.Builder
	for _, line := range strings.SplitAfter(s.logs.String(), "\n") {
		if !strings.Contains(line, `"msg":"Received request."`) && !strings.Contains(line, `"msg":"Sent response."`) {
			out.WriteString(line)
		}
	}
	return out.String()
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
