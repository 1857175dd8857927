package integration

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/fleet"
)

// convergeTimeout bounds how long a sidecar polling every second may take
// to run a pushed revision.
const convergeTimeout = 40 * time.Second

// carol is an input that r2 (the default grants added) changes: r1 says
// capability_required, r2 allowed.
const carol = `{"principal": {"id": "carol"}, "pack_id": "mail", "verb_key": "mail.get", "owner": "carol"}`

// signingHCP signs the fleet tests' bundles as the sidecars require:
// testdata/keys/rsa.key, RS256, key id "hcp".
var signingHCP = &bundles.Signing{KeyFile: keys + "rsa.key", Algorithm: "RS256", KeyID: "hcp"}

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

// startSidecars starts two OPAs with config: the first with the status
// plugin on (status reads /v1/status), the second without (status reads
// /v1/data/system/bundles and /health?bundles).
func startSidecars(t *testing.T, config map[string]any) []*server {
	t.Helper()
	withStatus := maps.Clone(config)
	withStatus["status"] = map[string]any{"console": true}
	var sidecars []*server
	for _, c := range []map[string]any{withStatus, config} {
		data, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		sidecars = append(sidecars, startOPA(t, "--config-file", writeFile(t, "opa.json", data)))
	}
	return sidecars
}

// urls are the sidecars' base addresses.
func urls(sidecars []*server) []string {
	var out []string
	for _, s := range sidecars {
		out = append(out, s.url)
	}
	return out
}

// status runs hcp-rego status on the sidecars with args, in JSON.
func status(t *testing.T, sidecars []*server, args ...string) (cliResult, fleet.Report) {
	t.Helper()
	all := append(append([]string{"status", "--format", "json"}, urls(sidecars)...), args...)
	res := hcpRego(t, t.TempDir(), all...)
	var report fleet.Report
	if err := json.Unmarshal([]byte(res.stdout), &report); err != nil {
		t.Fatalf("status printed no report (exit %d): %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}
	return res, report
}

// statusFromPlugin runs status --want-revision rev --wait 40s and, once
// converged, asks again until the first sidecar's row comes from its
// status plugin. OPA's status plugin learns of an activation a moment
// after the bundle's data shows it; until then status reads the data
// API, as it does for a sidecar without the plugin. The asking is
// bounded in count, so a plugin that never reports fails the caller.
func statusFromPlugin(t *testing.T, sidecars []*server, rev string) (cliResult, fleet.Report) {
	t.Helper()
	res, report := status(t, sidecars, "--want-revision", rev, "--wait", "40s")
	for range 40 {
		if res.code != 0 || report.Sidecars[0].Source == "status" {
			break
		}
		time.Sleep(250 * time.Millisecond)
		res, report = status(t, sidecars, "--want-revision", rev)
	}
	return res, report
}

// converge runs status --want-revision rev --wait 40s, which must exit 0
// with every sidecar on rev.
func converge(t *testing.T, sidecars []*server, rev string) {
	t.Helper()
	res, report := statusFromPlugin(t, sidecars, rev)
	if res.code != 0 || !report.Converged {
		t.Fatalf("status --want-revision %s --wait 40s: exit %d\n%s%s", rev, res.code, res.stdout, res.stderr)
	}
	for i, row := range report.Sidecars {
		if row.Revision != rev || (i == 0) != (row.Source == "status") || (i == 0) != (row.LastActivation != "") {
			t.Errorf("sidecar %d: %+v, want revision %s (from its status plugin for the first only)", i, row, rev)
		}
		if rev := sidecars[i].revision(t, "hcp"); rev != row.Revision {
			t.Errorf("sidecar %d runs %s, status says %s", i, rev, row.Revision)
		}
	}
}

// twoRevisions starts a registry with no credentials and builds two
// signed revisions of the example packs, r2 adding the default grants
// (which change some answers): the registry, a Docker config for it, the
// reference to push to, and the two bundle files.
func twoRevisions(t *testing.T) (reg *registry, docker, ref, r1, r2 string) {
	t.Helper()
	reg = startRegistry(t, false)
	docker = dockerConfig(t, reg.addr, "", "")
	ref = reg.addr + "/policy/hcp:prod"
	r1 = buildFile(t, exampleModel(t, acme), "r1", signingHCP)
	r2 = buildFile(t, exampleModel(t, acme, defaults), "r2", signingHCP)
	return reg, docker, ref, r1, r2
}

// TestFleetRollout pushes signed revisions to a real registry and proves
// that two real OPA sidecars, polling it with the oci service type, pull
// them and decide as each; that a push is reproducible and a bad one is
// refused before the tag moves; and that pull gives back the bytes
// pushed, verified, or nothing.
func TestFleetRollout(t *testing.T) {
	t.Parallel()
	reg, docker, ref, r1, r2 := twoRevisions(t)
	sidecars := startSidecars(t, ociSidecarConfig(t, reg.addr, ref))

	// 1. r1, then r2: both sidecars run each and decide as each.
	d1 := strings.TrimSpace(hcpRego(t, docker, "push", r1, ref, "--plain-http").must(t, "push r1"))
	converge(t, sidecars, "r1")
	for i, s := range sidecars {
		if code := s.code(t, carol); code != "capability_required" {
			t.Errorf("sidecar %d on r1: %s, want capability_required", i, code)
		}
	}
	d2 := strings.TrimSpace(hcpRego(t, docker, "push", r2, ref, "--plain-http").must(t, "push r2"))
	converge(t, sidecars, "r2")
	// A sidecar that cannot be asked is a row with its error, and the
	// rollout is not done.
	gone := &server{url: "http://" + freeAddr(t)}
	res, report := status(t, append(sidecars, gone), "--want-revision", "r2")
	if last := report.Sidecars[2]; res.code != 1 || report.Converged || last.Reachable || last.LastError != "unreachable: connection refused" {
		t.Errorf("status with a stopped sidecar: exit %d\n%s", res.code, res.stdout)
	}
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
	kept := filepath.Join(t.TempDir(), "kept.tar.gz")
	hcpRego(t, docker, "pull", ref, "-o", kept, "--plain-http").must(t, "pull after the refused pushes")
	if !bytes.Equal(readFile(t, kept), readFile(t, r2)) {
		t.Error("a refused push moved the tag off r2")
	}
	// A revision is the registry's text: pull prints it quoted when it
	// holds a control character.
	escaped := buildFile(t, exampleModel(t, acme), "r\x1b[31m4", nil)
	hcpRego(t, docker, "push", escaped, reg.addr+"/policy/escaped:prod", "--plain-http").must(t, "push a revision with an escape")
	said := hcpRego(t, docker, "pull", reg.addr+"/policy/escaped:prod", "-o", kept, "--plain-http").must(t, "pull a revision with an escape")
	if strings.Contains(said, "\x1b") || !strings.Contains(said, `revision "r\x1b[31m4"`) {
		t.Errorf("pull printed %q, want the revision quoted", said)
	}

	// 3. A tampered r3 (one module byte changed, the signature left as
	// it was), pushed with the raw registry API: both sidecars refuse it
	// and stay on r2, status shows r2 and the refusal, and
	// --want-revision r3 exits 1.
	tampered := tamperModule(t, readFile(t, buildFile(t, exampleModel(t, acme), "r3", signingHCP)), "/hcp/authz/gate.rego")
	rawPush(t, reg.addr, "policy/hcp", "prod", tampered, "r3")
	for _, s := range sidecars {
		s.waitFor(t, "the refusal of the tampered r3", convergeTimeout, func() bool {
			return strings.Contains(s.events(), "hcp/authz/gate.rego: digest mismatch")
		})
	}
	res, report = status(t, sidecars, "--want-revision", "r3")
	if res.code != 1 || report.Converged {
		t.Errorf("status --want-revision r3 after the tampered push: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for i, row := range report.Sidecars {
		if row.Revision != "r2" || sidecars[i].code(t, carol) != "allowed" {
			t.Errorf("sidecar %d after the tampered push: %+v, want r2", i, row)
		}
	}
	if got := report.Sidecars[0].LastError; !strings.Contains(got, "digest mismatch") {
		t.Errorf("status shows the error %q, want the refused signature's digest mismatch", got)
	}
	// pull refuses the tampered r3 with the key, and a layer that is no
	// bundle at all, writing nothing.
	refused := filepath.Join(t.TempDir(), "refused.tar.gz")
	hcpRego(t, docker, "pull", ref, "-o", refused, "--plain-http",
		"--verification-key", keys+"rsa.pub", "--verification-key-id", "hcp").refused(t, "pull of the tampered r3", "hcp/authz/gate.rego: digest mismatch")
	rawPush(t, reg.addr, "policy/junk", "prod", []byte("not a bundle"), "junk")
	hcpRego(t, docker, "pull", reg.addr+"/policy/junk:prod", "-o", refused, "--plain-http").refused(t, "pull of a layer that is no bundle", "bundle refused")
	if _, err := os.Stat(refused); !os.IsNotExist(err) {
		t.Errorf("a refused pull left a file: %v", err)
	}
	hcpRego(t, docker, "push", r2, ref, "--plain-http").must(t, "push r2 back")

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

// rawPush stores tarball at addr/repo:tag as the image manifest of
// docs/fleet.md (push), with the distribution API itself, past every check
// of hcp-rego push, as someone with write access to the registry could.
func rawPush(t *testing.T, addr, repo, tag string, tarball []byte, revision string) {
	t.Helper()
	base := "http://" + addr + "/v2/" + repo
	blob := func(data []byte) map[string]any {
		digest := fmt.Sprintf("sha256:%x", sha256.Sum256(data))
		resp, err := http.Post(base+"/blobs/uploads/", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc, err := resp.Location()
		if err != nil || resp.StatusCode != http.StatusAccepted {
			t.Fatalf("start an upload: %s, %v", resp.Status, err)
		}
		q := loc.Query()
		q.Set("digest", digest)
		loc.RawQuery = q.Encode()
		put(t, loc.String(), "application/octet-stream", data)
		return map[string]any{"digest": digest, "size": len(data)}
	}
	layer := blob(tarball)
	layer["mediaType"] = "application/vnd.oci.image.layer.v1.tar+gzip"
	config := blob([]byte("{}"))
	config["mediaType"] = "application/vnd.oci.image.config.v1+json"
	manifest, _ := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"config":        config,
		"layers":        []any{layer},
		"annotations":   map[string]string{"org.opencontainers.image.revision": revision},
	})
	put(t, base+"/manifests/"+tag, "application/vnd.oci.image.manifest.v1+json", manifest)
}

// put PUTs body to url, which must answer 201 Created.
func put(t *testing.T, url, contentType string, body []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("PUT %s: %s\n%s", url, resp.Status, msg)
	}
}

// TestReplayBundleRef replays a log against a candidate pushed to a
// registry (replay --bundle REF, pulled as pull pulls it): the report is
// the one the same bundle gives as a file, and a REF of nothing is
// refused with the registry named.
func TestReplayBundleRef(t *testing.T) {
	t.Parallel()
	reg := startRegistry(t, false)
	ref := reg.addr + "/policy/hcp:candidate"
	bundle := buildFile(t, exampleModel(t, acme), "r2", nil)
	docker := dockerConfig(t, reg.addr, "", "")
	hcpRego(t, docker, "push", bundle, ref, "--plain-http").must(t, "push")
	log := "../testdata/logs/decisions.log"
	fromFile := hcpRego(t, docker, "replay", "--bundle", bundle, "--format", "json", log).must(t, "replay --bundle FILE")
	fromRef := hcpRego(t, docker, "replay", "--bundle", ref, "--plain-http", "--format", "json", log).must(t, "replay --bundle REF")
	if fromRef != fromFile || !strings.Contains(fromFile, `"replayed"`) {
		t.Errorf("replay from the registry:\n%s\nwant what the file gives:\n%s", fromRef, fromFile)
	}
	hcpRego(t, docker, "replay", "--bundle", reg.addr+"/policy/none:r9", "--plain-http", log).refused(t, "replay of a REF of nothing", reg.addr)
}
