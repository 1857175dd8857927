package integration

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/bundletest"
)

// pollTimeout bounds how long a polling OPA may take to pick up a change.
const pollTimeout = 15 * time.Second

// bundleServer serves bundle files by path with ETags, answering 304 to a
// request whose If-None-Match names the current file.
type bundleServer struct {
	*httptest.Server
	mu          sync.Mutex
	files       map[string][]byte
	notModified atomic.Int64
}

func newBundleServer(t *testing.T) *bundleServer {
	t.Helper()
	b := &bundleServer{files: map[string][]byte{}}
	b.Server = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.Close)
	return b
}

// set serves data at path from now on.
func (b *bundleServer) set(path string, data []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.files[path] = data
}

func (b *bundleServer) serve(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	data, ok := b.files[r.URL.Path]
	b.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	etag := fmt.Sprintf(`"%x"`, sha256.Sum256(data))
	if r.Header.Get("If-None-Match") == etag {
		b.notModified.Add(1)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", etag)
	w.Header().Set("Content-Type", "application/gzip")
	w.Write(data)
}

// sidecarConfig is an OPA configuration that polls each named bundle from
// the server every second; signing, when not nil, is the `keys` entry
// that the bundle "hcp" must be signed with, named by an explicit keyid.
func sidecarConfig(t *testing.T, url string, names []string, signing map[string]any) string {
	t.Helper()
	bundleConfigs := map[string]any{}
	for _, name := range names {
		c := map[string]any{
			"service":  "hub",
			"resource": "bundles/" + name + ".tar.gz",
			"polling":  map[string]any{"min_delay_seconds": 1, "max_delay_seconds": 1},
		}
		if name == "hcp" && signing != nil {
			c["signing"] = map[string]any{"keyid": "hcp"}
		}
		bundleConfigs[name] = c
	}
	config := map[string]any{
		"services": map[string]any{"hub": map[string]any{"url": url}},
		"bundles":  bundleConfigs,
	}
	if signing != nil {
		config["keys"] = map[string]any{"hcp": signing}
	}
	data, _ := json.MarshalIndent(config, "", "  ")
	return writeFile(t, "config.json", data)
}

// extTarball is the runtime bundle testdata/ext as a .tar.gz.
func extTarball(t *testing.T) []byte {
	t.Helper()
	b, err := bundles.Read(extDir, nil, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	data, err := bundles.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// code is the decision code OPA gives input, "" when undefined.
func (s *server) code(t *testing.T, input string) string {
	t.Helper()
	doc, _ := s.query(t, "hcp/authz/decision", decode(t, input)).(map[string]any)
	code, _ := doc["code"].(string)
	return code
}

// TestSidecarPolls runs OPA as a sidecar that polls our bundle and the
// runtime's over HTTP: it activates both, revalidates with ETags (304),
// and picks up a new revision of ours.
func TestSidecarPolls(t *testing.T) {
	t.Parallel()
	hub := newBundleServer(t)
	hub.set("/bundles/hcp.tar.gz", readFile(t, buildFile(t, exampleModel(t, acme), "r1", nil)))
	hub.set("/bundles/ext.tar.gz", extTarball(t))
	s := startOPA(t, "--config-file", sidecarConfig(t, hub.URL, []string{"hcp", "ext"}, nil))
	s.waitHealthy(t)

	carol := `{"principal": {"id": "carol"}, "pack_id": "mail", "verb_key": "mail.get", "owner": "carol"}`
	if rev := s.revision(t, "hcp"); rev != "r1" {
		t.Fatalf("revision %q, want r1", rev)
	}
	if code := s.code(t, carol); code != "capability_required" {
		t.Errorf("r1 (no default grants): %s, want capability_required", code)
	}
	frozen := `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "verb_key": "mail.list", "owner": "bob", "runtime": {"deny": ["frozen"]}}`
	if code := s.code(t, frozen); code != "runtime_denied" {
		t.Errorf("with the polled ext bundle: %s, want runtime_denied", code)
	}
	s.waitFor(t, "a 304 to a poll with If-None-Match", pollTimeout, func() bool { return hub.notModified.Load() > 0 })

	hub.set("/bundles/hcp.tar.gz", readFile(t, buildFile(t, exampleModel(t, acme, defaults), "r2", nil)))
	s.waitFor(t, "revision r2", pollTimeout, func() bool { return s.revision(t, "hcp") == "r2" })
	if code := s.code(t, carol); code != "allowed" {
		t.Errorf("r2 (default grants): %s, want allowed", code)
	}
}

// TestSidecarVerifiesSignatures polls a bundle that must be signed by the
// key "hcp": OPA refuses it unsigned, signed by another key, or with one
// byte of one module changed, and activates it signed and intact; later
// a tampered revision leaves the good one active.
func TestSidecarVerifiesSignatures(t *testing.T) {
	t.Parallel()
	m := exampleModel(t, acme, defaults)
	signing := &bundles.Signing{KeyFile: keys + "rsa.key", Algorithm: "RS256", KeyID: "hcp"}
	good := readFile(t, buildFile(t, m, "signed-1", signing))
	hub := newBundleServer(t)
	hub.set("/bundles/hcp.tar.gz", readFile(t, buildFile(t, m, "unsigned", nil)))
	key := map[string]any{"algorithm": "RS256", "key": string(readFile(t, keys+"rsa.pub"))}
	s := startOPA(t, "--config-file", sidecarConfig(t, hub.URL, []string{"hcp"}, key))

	refusals := []struct {
		name   string
		bundle []byte
		log    string
	}{
		{"unsigned", nil, "bundle missing .signatures.json file"},
		{"other key", readFile(t, buildFile(t, m, "other", &bundles.Signing{KeyFile: keys + "other-rsa.key", KeyID: "hcp"})), "failed to verify JWT signature: crypto/rsa: verification error"},
		{"one module byte", tamperModule(t, good, "/hcp/authz/authz.rego"), "hcp/authz/authz.rego: digest mismatch"},
	}
	for _, r := range refusals {
		if r.bundle != nil {
			hub.set("/bundles/hcp.tar.gz", r.bundle)
		}
		s.waitFor(t, "the refusal of the "+r.name+" bundle", pollTimeout, func() bool { return strings.Contains(s.events(), r.log) })
		if s.healthy() || s.revision(t, "hcp") != "" || s.code(t, `{}`) != "" {
			t.Fatalf("%s bundle activated", r.name)
		}
	}

	hub.set("/bundles/hcp.tar.gz", good)
	s.waitHealthy(t)
	if rev := s.revision(t, "hcp"); rev != "signed-1" {
		t.Fatalf("revision %q, want signed-1", rev)
	}
	if code := s.code(t, `{}`); code != "invalid_input" {
		t.Errorf("signed bundle decides %q for {}", code)
	}

	// A tampered later revision is refused; the good one stays active.
	tampered := tamperModule(t, readFile(t, buildFile(t, m, "signed-2", signing)), "/hcp/authz/gate.rego")
	hub.set("/bundles/hcp.tar.gz", tampered)
	s.waitFor(t, "the refusal of the tampered revision", pollTimeout, func() bool {
		return strings.Contains(s.events(), "hcp/authz/gate.rego: digest mismatch")
	})
	if rev := s.revision(t, "hcp"); rev != "signed-1" {
		t.Errorf("revision %q after a tampered update, want signed-1", rev)
	}
}

// tamperModule changes one byte of the named module of a bundle tarball.
func tamperModule(t *testing.T, data []byte, name string) []byte {
	t.Helper()
	out, err := bundletest.FlipByte(data, name)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
