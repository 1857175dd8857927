package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/hcp-rego/hcp-rego/internal/registrytest"
)

// TestPullFailureKeepsOutput pulls a signed bundle from a registry that
// answers wrongly, or with the wrong key, over an existing -o FILE: exit
// 2, one line that says what failed, and FILE as it was, with nothing
// left beside it. The good pull, last, replaces FILE, so that each
// refusal comes from its one fault.
func TestPullFailureKeepsOutput(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir()) // no credentials, whatever the machine's
	dir := outputFixture(t)
	bundle := filepath.Join(dir, "hcp.tar.gz")
	if o := runInProcess(t, 0, "build", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"), "--signing-key", filepath.Join(dir, "key.pem"), "-o", bundle); o.code != exitOK {
		t.Fatalf("build: exit %d: %s", o.code, o.stderr)
	}
	data, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	reg := registrytest.New(t)
	ref := reg.Host + "/policy/hcp:r1"
	if o := runInProcess(t, 0, "push", bundle, ref, "--plain-http"); o.code != exitOK {
		t.Fatalf("push: exit %d: %s", o.code, o.stderr)
	}
	layer := "/blobs/" + digest.FromBytes(data).String()
	keys, err := filepath.Abs("../../testdata/keys")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		fault registrytest.Fault
		key   string
		want  string // in the one line on stderr; "" for the good pull
	}{
		{"the registry refuses", func(w http.ResponseWriter, r *http.Request) bool {
			registrytest.Refuse(w, http.StatusForbidden, "DENIED")
			return true
		}, "rsa.pub", "access denied (403 Forbidden)"},
		{"a layer not its digest", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasSuffix(r.URL.Path, layer) {
				return false
			}
			w.Write(bytes.ToUpper(data))
			return true
		}, "rsa.pub", "does not match its digest"},
		{"another key", nil, "other-rsa.pub", "bundle refused: failed to verify JWT signature"},
		{"the good pull", nil, "rsa.pub", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "hcp.tar.gz")
			if err := os.WriteFile(out, []byte("the bundle pulled before\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, filepath.Dir(out))
			reg.SetFault(tt.fault)
			o := runInProcess(t, 0, "pull", ref, "-o", out, "--plain-http", "--verification-key", filepath.Join(keys, tt.key))
			after := snapshot(t, filepath.Dir(out))
			if tt.want == "" {
				if got, _ := os.ReadFile(out); o.code != exitOK || !bytes.Equal(got, data) {
					t.Fatalf("the good pull: exit %d, %s", o.code, o.stderr)
				}
				return
			}
			// One problem: its line, and a hint on a line of its own
			// under it where it has one (a key that did not sign).
			problems := strings.Count(o.stderr, "\n") - strings.Count(o.stderr, "\n  hint: ")
			if o.code != exitBadInput || o.stdout != "" || problems != 1 || !strings.Contains(o.stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", o.code, o.stdout, o.stderr, tt.want)
			}
			if !reflect.DeepEqual(before, after) {
				t.Errorf("the output's folder changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestTransferTimeout holds push and pull to --timeout against a registry
// that stalls what each waits on: exit 2, one line that says the registry
// timed out, naming --timeout, no output written, and the registry sees
// the client hang up. Only --timeout can end either transfer: the layer
// pull reads comes a byte every 10 ms, so no byte is ever 60 s late (the
// client's idle limit), and the tag's PUT that push waits on is answered
// on a second try, which the client makes after its own 60 s limit for an
// answer's head, never once --timeout has ended the transfer.
func TestTransferTimeout(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	dir := outputFixture(t)
	bundle := filepath.Join(dir, "hcp.tar.gz")
	if o := runInProcess(t, 0, "build", filepath.Join(dir, "pack"), "--grants", filepath.Join(dir, "grants.json"), "-o", bundle); o.code != exitOK {
		t.Fatalf("build: exit %d: %s", o.code, o.stderr)
	}
	reg := registrytest.New(t)
	ref := reg.Host + "/policy/hcp:r1"
	if o := runInProcess(t, 0, "push", bundle, ref, "--plain-http"); o.code != exitOK {
		t.Fatalf("push: exit %d: %s", o.code, o.stderr)
	}
	data, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{}) // closed before the registry closes
	t.Cleanup(func() { close(ended) })
	hungUp := make(chan string, 8) // the stalled requests the client gave up
	var mu sync.Mutex
	stalled := map[string]bool{}
	stall := func(w http.ResponseWriter, r *http.Request) bool {
		req := r.Method + " " + r.URL.Path
		mu.Lock()
		again := stalled[req]
		stalled[req] = true
		mu.Unlock()
		if again || r.Method == http.MethodHead || r.Method == http.MethodGet && !strings.Contains(r.URL.Path, "/blobs/") {
			return false // a retry, the manifest, and what push asks exists, as they are
		}
		io.Copy(io.Discard, r.Body) // so that the server sees the client hang up
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.WriteHeader(http.StatusOK)
		}
		giveUp := time.After(hangAfter) // a hang breaker
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			if r.Method == http.MethodGet && i < len(data) {
				w.Write(data[i : i+1])
				w.(http.Flusher).Flush()
			}
			select {
			case <-r.Context().Done():
				hungUp <- req
				return true
			case <-ended:
				return true
			case <-giveUp:
				return true
			case <-tick.C:
			}
		}
	}
	reg.SetFault(stall)
	out := filepath.Join(t.TempDir(), "hcp.tar.gz")
	for _, args := range [][]string{
		{"pull", ref, "-o", out, "--plain-http", "--timeout", "1s"},
		{"push", bundle, reg.Host + "/policy/hcp:r2", "--plain-http", "--timeout", "1s"},
	} {
		o := runInProcess(t, 0, args...)
		want := "registry " + reg.Host + ": timed out (the transfer took longer than --timeout 1s)\n"
		if o.code != exitBadInput || strings.Count(o.stderr, "\n") != 1 || !strings.HasSuffix(o.stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line ending %q", args[0], o.code, o.stderr, want)
			continue
		}
		select {
		case req := <-hungUp:
			t.Logf("%s: the client hung up on %s", args[0], req)
		case <-time.After(hangAfter):
			t.Errorf("%s: the registry did not see the client hang up", args[0])
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the pull that timed out wrote %s: %v", out, err)
	}
	if o := runInProcess(t, 0, "pull", ref, "-o", out, "--timeout", "0s"); o.code != exitBadInput || !strings.Contains(o.stderr, "--timeout 0s: want a positive duration") {
		t.Errorf("--timeout 0s: exit %d, %q", o.code, o.stderr)
	}
}
