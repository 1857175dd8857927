package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
)

// restRequests is how many decisions one measurement asks for, spread over
// its clients, in blocks of restBlock that alternate between the targets
// (so that a minute when other work loads the machine slows every target,
// not one); restWarmup is asked first and not counted.
const (
	restRequests = 2000
	restBlock    = 100
	restWarmup   = 200
)

// restClient keeps a connection alive for each client, as a sidecar's
// caller does: the default transport keeps two idle connections a host,
// so four clients would open new ones as they go, a cost that is no
// decision's.
var restClient = &http.Client{Transport: func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 16
	return t
}()}

// sidecar is one `opa run --server` on a loopback port.
type sidecar struct {
	url  string
	path string // the query's path under /v1/data
	cmd  *exec.Cmd
}

// startSidecar starts OPA with args and waits for its bundles.
func (t *tools) startSidecar(path string, args ...string) (*sidecar, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.CommandContext(t.ctx, t.opa, append([]string{"run", "--server", "--addr", addr, "--log-level", "error"}, args...)...)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &sidecar{url: "http://" + addr, path: path, cmd: cmd}
	for start := time.Now(); time.Since(start) < 60*time.Second; time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get(s.url + "/health?bundles"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
	}
	s.stop()
	return nil, fmt.Errorf("opa %v did not activate within 60 s", args)
}

func (s *sidecar) stop() { s.cmd.Process.Kill(); s.cmd.Wait() }

// latencies asks the sidecar for n decisions on body from clients
// concurrent clients and returns each request's time in ns, sorted.
func (s *sidecar) latencies(body []byte, n, clients int) ([]float64, error) {
	url := s.url + "/v1/data/" + s.path
	out := make([]float64, n)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; i < n; i += clients {
				start := time.Now()
				resp, err := restClient.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					errs[c] = err
					return
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					errs[c] = fmt.Errorf("POST %s: %s %v", url, resp.Status, err)
					return
				}
				out[i] = float64(time.Since(start).Nanoseconds())
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return out, nil
}

// writeFloor writes the floor of the REST table: the one-rule policy with
// the confirm_required document that set s gives the bench's confirm input
// as its answer, a constant. It returns the policy's folder.
func writeFloor(t *tools, s *set) (string, error) {
	ev, _, err := evaluators(t.ctx, s)
	if err != nil {
		return "", err
	}
	r, err := ev.Decide(t.ctx, largeset.BenchInput(true))
	if err != nil {
		return "", err
	}
	if r.Decision.Code != "confirm_required" {
		return "", fmt.Errorf("the floor's document is %q, want confirm_required", r.Decision.Code)
	}
	doc, err := json.Marshal(r.Decision.Doc)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(t.work, "floor")
	policy := fmt.Sprintf("package floor\n\ndecision := %s if input.principal.id == \"u5\"\n", doc)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "floor.rego"), []byte(policy), 0o644)
}

// latencyREST measures decisions as a sidecar's caller sees them: POSTs to
// OPA's REST API on loopback, one client and four, against the one-rule
// policy served the same way. Each round asks the sidecars in turn, a block
// of requests each, until each has had restRequests; the table gives the
// medians of the rounds' p50 and p99.
func latencyREST(t *tools, sets map[string]*set) (table, error) {
	tb := table{
		title:  "Decision latency through OPA's REST API (POST /v1/data/..., loopback)",
		header: []string{"policy", "input", "clients", "p50", "ratio", "p99", "ratio"},
	}
	type target struct{ name, input string }
	servers := map[string]*sidecar{}
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	start := func(name, path string, args ...string) error {
		s, err := t.startSidecar(path, args...)
		if err == nil {
			servers[name] = s
		}
		return err
	}
	if err := start("one rule", "bench/allow", t.one); err != nil {
		return tb, err
	}
	floor, err := writeFloor(t, sets["small"])
	if err != nil {
		return tb, err
	}
	if err := start("document only", "floor/decision", floor); err != nil {
		return tb, err
	}
	targets := []target{{"one rule", "allowed"}, {"document only", "confirm"}}
	for _, name := range []string{"small", "large"} {
		if err := start(name, "hcp/authz/decision", "--bundle", sets[name].bundle); err != nil {
			return tb, err
		}
		targets = append(targets, target{name, "allowed"}, target{name, "confirm"})
	}
	bodies := map[string][]byte{}
	for name, path := range t.inputs {
		input, err := os.ReadFile(path)
		if err != nil {
			return tb, err
		}
		bodies[name] = append(append([]byte(`{"input": `), input...), '}')
	}
	type key struct {
		target
		clients int
	}
	p50s, p99s := map[key][]float64{}, map[key][]float64{}
	for range t.rounds {
		for _, clients := range []int{1, 4} {
			for _, tg := range targets {
				if _, err := servers[tg.name].latencies(bodies[tg.input], restWarmup, clients); err != nil {
					return tb, err
				}
			}
			got := map[key][]float64{}
			for range restRequests / restBlock {
				for _, tg := range targets {
					l, err := servers[tg.name].latencies(bodies[tg.input], restBlock, clients)
					if err != nil {
						return tb, err
					}
					k := key{tg, clients}
					got[k] = append(got[k], l...)
				}
			}
			for k, l := range got {
				slices.Sort(l)
				p50s[k] = append(p50s[k], l[len(l)/2])
				p99s[k] = append(p99s[k], l[len(l)*99/100])
			}
		}
	}
	for _, clients := range []int{1, 4} {
		base := key{targets[0], clients}
		b50, b99 := median(p50s[base]), median(p99s[base])
		for _, tg := range targets {
			k := key{tg, clients}
			p50, p99 := median(p50s[k]), median(p99s[k])
			tb.rows = append(tb.rows, []string{tg.name, tg.input, fmt.Sprint(clients), micros(p50), ratio(p50, b50), micros(p99), ratio(p99, b99)})
		}
	}
	tb.notes = append(tb.notes, "Document only is the one-rule policy answering with the small set's confirm_required document as a constant: what HTTP and a document of that size cost without evaluating the decision.")
	tb.notes = append(tb.notes, fmt.Sprintf("Each figure is the median over %d rounds of %d requests a target (after %d not counted), asked in blocks of %d that alternate between the targets; ratios are to the one-rule policy at the same concurrency.", t.rounds, restRequests, restWarmup, restBlock))
	return tb, nil
}
