package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
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
			if o.code != exitBadInput || o.stdout != "" || strings.Count(o.stderr, "\n") != 1 || !strings.Contains(o.stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", o.code, o.stdout, o.stderr, tt.want)
			}
			if !reflect.DeepEqual(before, after) {
				t.Errorf("the output's folder changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestTransferTimeout holds push and pull to --timeout against a registry
// that sends a byte and then nothing, within the client's idle limit of
// 60 s: exit 2 soon after the timeout, one line that says so, and no
// output written.
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
	stall := func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodGet && !strings.Contains(r.URL.Path, "/blobs/") {
			return false // the manifest, as it is
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		w.Write(data[:1])
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-ended:
		}
		return true
	}
	reg.SetFault(stall)
	out := filepath.Join(t.TempDir(), "hcp.tar.gz")
	for _, args := range [][]string{
		{"pull", ref, "-o", out, "--plain-http", "--timeout", "1s"},
		{"push", bundle, reg.Host + "/policy/hcp:r2", "--plain-http", "--timeout", "1s"},
	} {
		o := runInProcess(t, 0, args...)
		t.Logf("%s: %s", args[0], strings.TrimSpace(o.stderr))
		if o.code != exitBadInput || strings.Count(o.stderr, "\n") != 1 || !strings.Contains(o.stderr, "(the transfer took longer than --timeout 1s)") || o.elapsed > 20*time.Second {
			t.Errorf("%s: exit %d in %v, stderr %q; want exit 2 and one line naming --timeout", args[0], o.code, o.elapsed, o.stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the pull that timed out wrote %s: %v", out, err)
	}
	if o := runInProcess(t, 0, "pull", ref, "-o", out, "--timeout", "0s"); o.code != exitBadInput || !strings.Contains(o.stderr, "--timeout 0s: want a positive duration") {
		t.Errorf("--timeout 0s: exit %d, %q", o.code, o.stderr)
	}
}
