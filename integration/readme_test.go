package integration

import (
	"strings"
	"testing"
)

// readmeFleetConfig is the OPA configuration of docs/fleet.md (the
// README's "Rolling out to a fleet" before the docs moved), the yaml block after its fleet-config marker, as written.
func readmeFleetConfig(t *testing.T) string {
	t.Helper()
	readme := string(readFile(t, "../docs/fleet.md"))
	_, after, ok := strings.Cut(readme, "<!-- fleet-config:")
	if ok {
		_, after, ok = strings.Cut(after, "```yaml\n")
	}
	block, _, closed := strings.Cut(after, "```\n")
	if !ok || !closed {
		t.Fatal("docs/fleet.md: no yaml block after the fleet-config marker")
	}
	return block
}

// TestReadmeFleetConfig runs docs/fleet.md's rollout: build a signed
// revision, push it, start a sidecar with the page's configuration as
// it is (the registry's address from the environment, the key with
// --set-file), and status --want-revision --wait, which must see the
// revision through the status plugin the configuration turns on.
func TestReadmeFleetConfig(t *testing.T) {
	// Not parallel: OPA takes the registry from the environment.
	reg := startRegistry(t, false)
	ref := reg.addr + "/policy/hcp:prod"
	t.Setenv("HCP_REGISTRY_URL", "http://"+reg.addr) // the test registry has no TLS
	t.Setenv("HCP_BUNDLE_REF", ref)
	config := writeFile(t, "opa-config.yaml", []byte(readmeFleetConfig(t)))
	bundle := buildFile(t, exampleModel(t, acme), "readme-1", signingHCP)

	hcpRego(t, t.TempDir(), "push", bundle, ref, "--plain-http").must(t, "push")
	s := startOPA(t, "--config-file", config, "--set-file", "keys.hcp.key="+keys+"rsa.pub")
	res, report := status(t, []*server{s}, "--want-revision", "readme-1", "--wait", "40s")
	if res.code != 0 || report.Sidecars[0].Source != "status" {
		t.Fatalf("status --want-revision readme-1 --wait 40s: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if code := s.code(t, carol); code != "capability_required" {
		t.Errorf("the sidecar decides %s, want capability_required", code)
	}
}
