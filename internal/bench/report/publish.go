package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// benchRevisions are the two revisions of the large bundle pushed in turn.
var benchRevisions = []string{"bench-1", "bench-2"}

// pollSeconds is the sidecar's bundle polling interval in the rollout
// measurement (min and max alike).
const pollSeconds = 1

// publishing pushes the large bundle to a real OCI registry (the CNCF
// distribution registry pinned in tools/registry/go.mod, storage in
// memory, on loopback) and pulls it back with hcp-rego, and measures the
// time from the start of a push until a sidecar polling the registry with
// OPA's oci service runs the revision pushed.
func publishing(t *tools, sets map[string]*set) (table, error) {
	tb := table{title: "Publishing (`hcp-rego push` / `pull`, a loopback OCI registry)", header: []string{"step", "time"}}
	large := sets["large"]
	addr, stop, err := t.startRegistry()
	if err != nil {
		return tb, err
	}
	defer stop()
	ref := addr + "/bench/hcp:prod"
	// Two revisions of the large bundle, so that every push moves the tag.
	var revisions []string
	for _, rev := range benchRevisions {
		file := filepath.Join(t.work, "large-"+rev+".tar.gz")
		if _, err := t.exec(t.hcp, append(append([]string{"build"}, large.args()...), "-o", file, "--revision", rev)...); err != nil {
			return tb, err
		}
		revisions = append(revisions, file)
	}
	var push, pull []float64
	for i := range t.rounds {
		// A repository of its own each round: every blob is sent.
		round := fmt.Sprintf("%s/bench/round-%d:prod", addr, i)
		r, err := t.exec(t.hcp, "push", revisions[i%2], round, "--plain-http")
		if err != nil {
			return tb, err
		}
		push = append(push, r.seconds)
		r, err = t.exec(t.hcp, "pull", round, "-o", filepath.Join(t.work, "pulled.tar.gz"), "--plain-http")
		if err != nil {
			return tb, err
		}
		pull = append(pull, r.seconds)
	}
	rollout, err := t.rollout(addr, ref, revisions)
	if err != nil {
		return tb, err
	}
	size := int64(0)
	if info, err := os.Stat(revisions[0]); err == nil {
		size = info.Size()
	}
	tb.rows = append(tb.rows,
		[]string{fmt.Sprintf("push, large bundle (%d KB compressed)", size>>10), seconds(median(push))},
		[]string{"pull and check, large bundle", seconds(median(pull))},
		[]string{fmt.Sprintf("push to active revision on a sidecar polling every %d s", pollSeconds), rollout})
	tb.notes = append(tb.notes, fmt.Sprintf("The polling interval adds up to %d s to the rollout, half of it on average; the rest is the push, OPA's download from the registry and its activation of the new revision, which replaces the old one in about the time and CPU of a fresh start (OPA activation, above): the grant tables sit at the data root hcp_grants, beside hcp, so OPA's path-conflict check, which reads data.hcp once a rule while it replaces a revision, copies no table (docs/bundles.md). The rollout table measures replacements over HTTP at three sizes, with their CPU and the decisions served meanwhile; this row is the same through OCI, the median of %d pushes that alternate two revisions.", pollSeconds, t.rounds))
	return tb, nil
}

// rolloutTimeout bounds the wait for a sidecar to run a pushed revision:
// seconds are expected, and a row says when it took longer.
const rolloutTimeout = 5 * time.Minute

// rollout starts a sidecar on the first revision, then pushes the two in
// turn, once a round, and measures each time until the sidecar runs the
// one pushed: the median. A sidecar that does not within rolloutTimeout
// gives a row that says so, not a failed report.
func (t *tools) rollout(addr, ref string, revisions []string) (string, error) {
	if _, err := t.exec(t.hcp, "push", revisions[0], ref, "--plain-http"); err != nil {
		return "", err
	}
	config, _ := json.Marshal(map[string]any{
		"services": map[string]any{"registry": map[string]any{"url": "http://" + addr, "type": "oci"}},
		"bundles": map[string]any{"hcp": map[string]any{"service": "registry", "resource": ref,
			"polling": map[string]any{"min_delay_seconds": pollSeconds, "max_delay_seconds": pollSeconds}}},
	})
	configFile := filepath.Join(t.work, "sidecar.json")
	if err := os.WriteFile(configFile, config, 0o644); err != nil {
		return "", err
	}
	port, err := freePort()
	if err != nil {
		return "", err
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.CommandContext(t.ctx, t.opa, "run", "--server", "--addr", listen, "--config-file", configFile)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	base := "http://" + listen
	if !waitRevision(base, benchRevisions[0], rolloutTimeout) {
		return fmt.Sprintf("> %v: the first revision is not active", rolloutTimeout), nil
	}
	var took []float64
	for i := range t.rounds {
		next := (i + 1) % 2
		start := time.Now()
		if _, err := t.exec(t.hcp, "push", revisions[next], ref, "--plain-http"); err != nil {
			return "", err
		}
		if !waitRevision(base, benchRevisions[next], rolloutTimeout) {
			return fmt.Sprintf("> %v", rolloutTimeout), nil
		}
		took = append(took, time.Since(start).Seconds())
	}
	return seconds(median(took)), nil
}

// waitRevision waits until the sidecar at base runs revision want of the
// bundle hcp, and reports whether it did within timeout.
func waitRevision(base, want string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if rev, ok := revision(base); ok && rev == want {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// revision is the sidecar's active revision of the bundle hcp.
func revision(base string) (string, bool) {
	resp, err := http.Get(base + "/v1/data/system/bundles/hcp/manifest/revision")
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	var doc struct{ Result string }
	if json.Unmarshal(data, &doc) != nil {
		return "", false
	}
	return doc.Result, true
}

// startRegistry starts the pinned registry with in-memory storage on a
// loopback port, and returns its address and what stops it.
func (t *tools) startRegistry() (string, func(), error) {
	out, err := exec.CommandContext(t.ctx, "go", "tool", "-modfile=tools/registry/go.mod", "-n", "registry").Output()
	if err != nil {
		return "", nil, fmt.Errorf("find the pinned registry (go tool -modfile=tools/registry/go.mod -n registry): %w", err)
	}
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	config := filepath.Join(t.work, "registry.yml")
	text := "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  inmemory: {}\nhttp:\n  addr: " + addr + "\n"
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(t.ctx, strings.TrimSpace(string(out)), "serve", config)
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none")
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }
	for start := time.Now(); time.Since(start) < 20*time.Second; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/v2/"); err == nil {
			resp.Body.Close()
			return addr, stop, nil
		}
	}
	stop()
	return "", nil, fmt.Errorf("the registry does not answer on %s after 20 s", addr)
}
