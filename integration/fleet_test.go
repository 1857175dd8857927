package integration

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hcp-rego/hcp-rego/bundles"
)

// convergeTimeout bounds how long a sidecar polling every second may take
// to run a pushed revision.
const convergeTimeout = 40 * time.Second

// carol is an input that r2 (the default grants added) changes: r1 says
// capability_required, r2 allowed.
const carol = `{"principal": {"id": "carol"}, "pack_id": "mail", "verb_key": "mail.get", "owner": "carol"}`

// ociSidecarConfig is an OPA configuration that polls the bundle "hcp"
// from ref in the registry at addr every second, with OPA's oci service
// type, and requires it signed by testdata/keys/rsa.pub as key id "hcp".
func ociSidecarConfig(t *testing.T, addr, ref string) map[string]any {
	t.Helper()
	return map[string]any{
		"services": map[string]any{"registry": map[string]any{"url": "http://" + addr, "type": "oci"}},
		"bundles": map[string]any{"hcp": map[string]any{
			"service":  "registry",
			"resource": ref,
			"polling":  map[string]any{"min_delay_seconds": 1, "max_delay_seconds": 1},
			"signing":  map[string]any{"keyid": "hcp"},
		}},
		"keys": map[string]any{"hcp": map[string]any{"algorithm": "RS256", "key": string(readFile(t, keys+"rsa.pub"))}},
	}
}

// startSidecars starts n OPAs with config.
func startSidecars(t *testing.T, n int, config map[string]any) []*server {
	t.Helper()
	data, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, "opa.json", data)
	var sidecars []*server
	for range n {
		sidecars = append(sidecars, startOPA(t, "--config-file", path))
	}
	return sidecars
}

// waitRevision waits until every sidecar runs revision rev.
func waitRevision(t *testing.T, sidecars []*server, rev string) {
	t.Helper()
	for _, s := range sidecars {
		s.waitFor(t, "revision "+rev, convergeTimeout, func() bool { return s.revision(t, "hcp") == rev })
	}
}

// TestFleetRollout pushes signed revisions to a real registry and proves
// that two real OPA sidecars, polling it with the oci service type, pull
// them and decide as each; that a push is reproducible and a bad one is
// refused before the tag moves; and that pull gives back the bytes
// pushed, verified, or nothing.
func TestFleetRollout(t *testing.T) {
	t.Parallel()
	reg := startRegistry(t, false)
	docker := dockerConfig(t, reg.addr, "", "")
	ref := reg.addr + "/policy/hcp:prod"
	signing := &bundles.Signing{KeyFile: keys + "rsa.key", Algorithm: "RS256", KeyID: "hcp"}
	r1 := buildFile(t, exampleModel(t, acme), "r1", signing)
	r2 := buildFile(t, exampleModel(t, acme, defaults), "r2", signing)
	sidecars := startSidecars(t, 2, ociSidecarConfig(t, reg.addr, ref))

	// 1. r1, then r2: both sidecars run each and decide as each.
	d1 := strings.TrimSpace(hcpRego(t, docker, "push", r1, ref, "--plain-http").must(t, "push r1"))
	waitRevision(t, sidecars, "r1")
	for i, s := range sidecars {
		if code := s.code(t, carol); code != "capability_required" {
			t.Errorf("sidecar %d on r1: %s, want capability_required", i, code)
		}
	}
	d2 := strings.TrimSpace(hcpRego(t, docker, "push", r2, ref, "--plain-http").must(t, "push r2"))
	waitRevision(t, sidecars, "r2")
	for i, s := range sidecars {
		if code := s.code(t, carol); code != "allowed" {
			t.Errorf("sidecar %d on r2: %s, want allowed", i, code)
		}
	}

	// 2. The same bundle twice: the same digest. A file that is not a
	// bundle of ours is refused, and the tag keeps r2's bytes.
	if !strings.HasPrefix(d1, "sha256:") || d1 == d2 {
		t.Errorf("digests %q and %q, want two sha256 digests", d1, d2)
	}
	again := strings.TrimSpace(hcpRego(t, docker, "push", r2, ref, "--plain-http").must(t, "push r2 again"))
	if again != d2 {
		t.Errorf("r2 pushed again: %s, want %s", again, d2)
	}
	text := writeFile(t, "notes.tar.gz", []byte("not a bundle\n"))
	hcpRego(t, docker, "push", text, ref, "--plain-http").refused(t, "push of a text file", "bundle refused")
	ext := writeFile(t, "ext.tar.gz", extTarball(t))
	hcpRego(t, docker, "push", ext, ref, "--plain-http").refused(t, "push of another bundle", "not a bundle hcp-rego built")

	// 4. pull gives back r2's bytes, verified; with a wrong key, nothing.
	out := filepath.Join(t.TempDir(), "pulled.tar.gz")
	hcpRego(t, docker, "pull", ref, "-o", out, "--plain-http",
		"--verification-key", keys+"rsa.pub", "--verification-key-id", "hcp").must(t, "pull")
	if !bytes.Equal(readFile(t, out), readFile(t, r2)) {
		t.Error("the pulled bundle differs from r2 as built")
	}
	hcpRego(t, docker, "pull", reg.addr+"/policy/hcp@"+d1, "-o", out, "--plain-http").must(t, "pull r1 by digest")
	if !bytes.Equal(readFile(t, out), readFile(t, r1)) {
		t.Error("the bundle pulled by r1's digest differs from r1 as built")
	}
	wrong := filepath.Join(t.TempDir(), "wrong.tar.gz")
	hcpRego(t, docker, "pull", ref, "-o", wrong, "--plain-http",
		"--verification-key", keys+"other-rsa.pub", "--verification-key-id", "hcp").refused(t, "pull with another key", "failed to verify JWT signature")
	if _, err := os.Stat(wrong); !os.IsNotExist(err) {
		t.Errorf("pull with another key left a file: %v", err)
	}
	hcpRego(t, docker, "pull", reg.addr+"/policy/none:prod", "-o", wrong, "--plain-http").refused(t, "pull of a missing tag", "not found")
	if _, err := os.Stat(wrong); !os.IsNotExist(err) {
		t.Errorf("pull of a missing tag left a file: %v", err)
	}
}

// TestRegistryCredentials pushes to a registry that requires credentials:
// with the Docker config's it works; without them, or with a wrong
// password, push exits 2 saying authentication failed, and never echoes
// the password.
func TestRegistryCredentials(t *testing.T) {
	t.Parallel()
	reg := startRegistry(t, true)
	ref := reg.addr + "/policy/hcp:prod"
	bundle := buildFile(t, exampleModel(t, acme), "r1", nil)

	good := dockerConfig(t, reg.addr, registryUser, registryPassword)
	digest := hcpRego(t, good, "push", bundle, ref, "--plain-http").must(t, "push with credentials")
	if !strings.HasPrefix(digest, "sha256:") {
		t.Errorf("push printed %q, want a digest", digest)
	}
	out := filepath.Join(t.TempDir(), "pulled.tar.gz")
	hcpRego(t, good, "pull", ref, "-o", out, "--plain-http").must(t, "pull with credentials")
	if !bytes.Equal(readFile(t, out), readFile(t, bundle)) {
		t.Error("the pulled bundle differs from the one pushed")
	}

	none := dockerConfig(t, reg.addr, "", "")
	hcpRego(t, none, "push", bundle, ref, "--plain-http").refused(t, "push without credentials", "registry "+reg.addr+": authentication failed")
	wrongPassword := "wrong-" + registryPassword
	wrong := dockerConfig(t, reg.addr, registryUser, wrongPassword)
	res := hcpRego(t, wrong, "push", bundle, ref, "--plain-http")
	res.refused(t, "push with a wrong password", "registry "+reg.addr+": authentication failed")
	if strings.Contains(res.stderr, wrongPassword) || strings.Contains(res.stderr, registryUser+":") {
		t.Errorf("the error echoes the credentials: %s", res.stderr)
	}
	hcpRego(t, none, "pull", ref, "-o", out+".2", "--plain-http").refused(t, "pull without credentials", "authentication failed")
}
