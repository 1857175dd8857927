package integration

import (
	"strings"
	"testing"
)

// fleetConfig is the OPA configuration of a page (docs/fleet.md), the
// yaml block after its fleet-config marker, as written.
func fleetConfig(t *testing.T, page string) string {
	t.Helper()
	text := string(readFile(t, page))
	_, after, ok := strings.Cut(text, "<!-- fleet-config:")
	if ok {
		_, after, ok = strings.Cut(after, "```yaml\n")
	}
	block, _, closed := strings.Cut(after, "```\n")
	if !ok || !closed {
		t.Fatalf("%s: no yaml block after the fleet-config marker", page)
	}
	return block
}

// TestFleetDocConfig runs docs/fleet.md's rollout: build a signed
// revision, push it, start a sidecar with the page's configuration as
// it is (the registry's address from the environment, the key with
// --set-file), and status --want-revision --wait, which must see the
// revision through the status plugin the configuration turns on.
func TestFleetDocConfig(t *testing.T) {
	// Not parallel: OPA takes the registry from the environment.
	reg := startRegistry(t, false)
	ref := reg.addr + "/policy/hcp:prod"
	t.Setenv("HCP_REGISTRY_URL", "http://"+reg.addr) // the test registry has no TLS
	t.Setenv("HCP_BUNDLE_REF", ref)
	config := writeFile(t, "opa-config.yaml", []byte(fleetConfig(t, "../docs/fleet.md")))
	bundle := buildFile(t, exampleModel(t, acme), "fleet-doc-1", signingHCP)

	hcpRego(t, t.TempDir(), "push", bundle, ref, "--plain-http").must(t, "push")
	s := startOPA(t, "--config-file", config, "--set-file", "keys.hcp.key="+keys+"rsa.pub")
	res, report := statusFromPlugin(t, []*server{s}, "fleet-doc-1")
	if res.code != 0 || report.Sidecars[0].Source != "status" {
		t.Fatalf("status --want-revision fleet-doc-1 --wait 40s: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if code := s.code(t, carol); code != "capability_required" {
		t.Errorf("the sidecar decides %s, want capability_required", code)
	}
}
