// Package registrytest is an OCI registry in memory, on an httptest
// server, that answers wrongly where a test asks it to: the tests of
// package oci and of the pull and push commands use it to see each bad
// answer refused, in-process and fast. It speaks as much of the
// distribution API as oras-go uses, for one repository whatever its name:
// manifests by tag and by digest, blobs, and blob uploads in one PUT.
// The integration tests push to a real registry instead.
package registrytest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/opencontainers/go-digest"
)

// Registry is the registry. It keeps every request it was sent, in order,
// so that a test can tell what a client asked for and what it never did.
type Registry struct {
	// Host is the registry's host:port, the start of a REF.
	Host string

	mu        sync.Mutex
	fault     Fault
	blobs     map[digest.Digest][]byte
	manifests map[digest.Digest]stored
	tags      map[string]digest.Digest
	requests  []string
}

// Fault sees a request before the registry does, and may answer it
// itself, as a broken or hostile registry would: it returns true when it
// did.
type Fault func(w http.ResponseWriter, r *http.Request) bool

// SetFault makes f see every request from now on; nil takes it away.
func (reg *Registry) SetFault(f Fault) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	reg.fault = f
}

// stored is a manifest as it was put: its bytes and media type.
type stored struct {
	mediaType string
	data      []byte
}

// New starts a registry that stops when the test ends.
func New(t testing.TB) *Registry {
	t.Helper()
	reg := &Registry{blobs: map[digest.Digest][]byte{}, manifests: map[digest.Digest]stored{}, tags: map[string]digest.Digest{}}
	server := httptest.NewServer(http.HandlerFunc(reg.serve))
	t.Cleanup(server.Close)
	reg.Host = strings.TrimPrefix(server.URL, "http://")
	return reg
}

// Requests is every request so far, as "METHOD /path".
func (reg *Registry) Requests() []string {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return append([]string(nil), reg.requests...)
}

// Asked reports whether a request so far had this method and a path that
// ends with suffix.
func (reg *Registry) Asked(method, suffix string) bool {
	for _, r := range reg.Requests() {
		m, path, _ := strings.Cut(r, " ")
		if m == method && strings.HasSuffix(path, suffix) {
			return true
		}
	}
	return false
}

// Tag is the digest the tag names, "" when none.
func (reg *Registry) Tag(tag string) digest.Digest {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return reg.tags[tag]
}

// putBlob stores a blob and returns its digest.
func (reg *Registry) putBlob(data []byte) digest.Digest {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	d := digest.FromBytes(data)
	reg.blobs[d] = data
	return d
}

// putManifest stores a manifest under its digest and, when tag is not
// empty, under tag; it returns the digest.
func (reg *Registry) putManifest(tag, mediaType string, data []byte) digest.Digest {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	d := digest.FromBytes(data)
	reg.manifests[d] = stored{mediaType, data}
	if tag != "" {
		reg.tags[tag] = d
	}
	return d
}

// maxBody bounds what the registry reads of a request.
const maxBody = 64 << 20

// serve answers one request of the distribution API:
// /v2/NAME/manifests/REF, /v2/NAME/blobs/DIGEST and
// /v2/NAME/blobs/uploads/[ID].
func (reg *Registry) serve(w http.ResponseWriter, r *http.Request) {
	reg.mu.Lock()
	reg.requests = append(reg.requests, r.Method+" "+r.URL.Path)
	fault := reg.fault
	reg.mu.Unlock()
	if fault != nil && fault(w, r) {
		return
	}
	path := r.URL.Path
	switch {
	case strings.Contains(path, "/blobs/uploads/"):
		reg.upload(w, r)
	case strings.Contains(path, "/manifests/"):
		reg.manifest(w, r, path[strings.LastIndex(path, "/manifests/")+len("/manifests/"):])
	case strings.Contains(path, "/blobs/"):
		reg.blob(w, r, digest.Digest(path[strings.LastIndex(path, "/")+1:]))
	default:
		http.NotFound(w, r)
	}
}

// manifest answers for the manifest ref, a tag or a digest.
func (reg *Registry) manifest(w http.ResponseWriter, r *http.Request, ref string) {
	if r.Method == http.MethodPut {
		data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
		tag := ref
		if strings.HasPrefix(ref, "sha256:") {
			tag = ""
		}
		if err != nil || (tag == "" && ref != digest.FromBytes(data).String()) {
			Refuse(w, http.StatusBadRequest, "MANIFEST_INVALID")
			return
		}
		d := reg.putManifest(tag, r.Header.Get("Content-Type"), data)
		w.Header().Set("Docker-Content-Digest", d.String())
		w.WriteHeader(http.StatusCreated)
		return
	}
	reg.mu.Lock()
	d, ok := reg.tags[ref]
	if !ok {
		d = digest.Digest(ref)
	}
	m, ok := reg.manifests[d]
	reg.mu.Unlock()
	if !ok {
		Refuse(w, http.StatusNotFound, "MANIFEST_UNKNOWN")
		return
	}
	w.Header().Set("Content-Type", m.mediaType)
	w.Header().Set("Docker-Content-Digest", d.String())
	w.Header().Set("Content-Length", fmt.Sprint(len(m.data)))
	if r.Method == http.MethodGet {
		w.Write(m.data)
	}
}

// blob answers for the blob d.
func (reg *Registry) blob(w http.ResponseWriter, r *http.Request, d digest.Digest) {
	reg.mu.Lock()
	data, ok := reg.blobs[d]
	reg.mu.Unlock()
	if !ok {
		Refuse(w, http.StatusNotFound, "BLOB_UNKNOWN")
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Docker-Content-Digest", d.String())
	w.Header().Set("Content-Length", fmt.Sprint(len(data)))
	if r.Method == http.MethodGet {
		w.Write(data)
	}
}

// upload starts an upload (POST) or ends it with the blob (PUT
// ...?digest=D), which is stored when it matches D.
func (reg *Registry) upload(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		w.Header().Set("Location", strings.TrimSuffix(r.URL.Path, "/")+"/1")
		w.WriteHeader(http.StatusAccepted)
	case http.MethodPut:
		data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
		if err != nil || r.URL.Query().Get("digest") != digest.FromBytes(data).String() {
			Refuse(w, http.StatusBadRequest, "DIGEST_INVALID")
			return
		}
		w.Header().Set("Docker-Content-Digest", reg.putBlob(data).String())
		w.WriteHeader(http.StatusCreated)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// Refuse answers with status and one error of the distribution API's,
// code, as a registry refuses a request.
func Refuse(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"errors":[{"code":%q,"message":"refused by the test registry"}]}`, code)
}
