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
	"strings"
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
	url     string
	path    string  // the query's path under /v1/data
	started float64 // s: from the process's start to its bundles active
	cmd     *exec.Cmd
}

// sidecarOpts say how a sidecar runs, beyond `opa run --server --addr`.
type sidecarOpts struct {
	args []string // OPA's further arguments, the log level among them
	env  []string // added to the environment, NAME=value
	cpus string   // the CPUs it may run on (taskset -c), "" for all
}

// startSidecar starts OPA with args, logging errors only, and waits for
// its bundles.
func (t *tools) startSidecar(path string, args ...string) (*sidecar, error) {
	return t.startSidecarWith(path, sidecarOpts{args: append([]string{"--log-level", "error"}, args...)})
}

// startSidecarWith starts OPA as o says and waits for its bundles. What
// it logs is read and dropped, as a container runtime reads a container's
// output.
func (t *tools) startSidecarWith(path string, o sidecarOpts) (*sidecar, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	name, args := t.opa, append([]string{"run", "--server", "--addr", addr}, o.args...)
	if o.cpus != "" {
		// taskset execs OPA in its own process: the pid is OPA's.
		name, args = "taskset", append([]string{"-c", o.cpus, t.opa}, args...)
	}
	cmd := exec.CommandContext(t.ctx, name, args...)
	cmd.Env = append(os.Environ(), o.env...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &sidecar{url: "http://" + addr, path: path, cmd: cmd}
	for ; time.Since(start) < 120*time.Second; time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get(s.url + "/health?bundles"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				s.started = time.Since(start).Seconds()
				return s, nil
			}
		}
	}
	s.stop()
	return nil, fmt.Errorf("opa %v did not activate within 120 s", o.args)
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
	evs, _, err := evaluators(t.ctx, t, s)
	if err != nil {
		return "", err
	}
	r, err := evs[0].ev.Decide(t.ctx, largeset.BenchInput(largeset.ConfirmRequired))
	if err != nil {
		return "", err
	}
	if r.Decision.Code != largeset.ConfirmRequired {
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

// restTarget is one sidecar asked one call.
type restTarget struct {
	name, call string
	s          *sidecar
}

// restFleet is the sidecars a REST table starts and what each serves:
// serve starts one and names its calls as targets; stop stops them all.
type restFleet struct {
	t       *tools
	servers []*sidecar
	targets []restTarget
}

// serve starts a sidecar of the bundle at path, serving the decision at
// path, and adds a target for each of calls under name.
func (f *restFleet) serve(name, path string, calls []string, args ...string) error {
	s, err := f.t.startSidecar(path, args...)
	if err != nil {
		return err
	}
	f.servers = append(f.servers, s)
	for _, call := range calls {
		f.targets = append(f.targets, restTarget{name, call, s})
	}
	return nil
}

// stop stops every sidecar started.
func (f *restFleet) stop() {
	for _, s := range f.servers {
		s.stop()
	}
}

// restKey is a target at a concurrency.
type restKey struct {
	target  int // index in the targets
	clients int
}

// restRounds asks each target, at each concurrency, restRequests
// decisions a round after restWarmup not counted, in blocks of restBlock
// that take turns between the targets (in the reverse order every other
// round: the target asked first in a turn measured some 1.5% slower than
// the same bundle asked after it), and returns each round's p50 and
// p99 by target and concurrency. The targets' calls are checked first:
// each must answer with the code its call is named for (a decision's
// code), or, for a policy other than the library's, answer at all.
func (t *tools) restRounds(targets []restTarget, clients []int) (p50s, p99s map[restKey][]float64, err error) {
	bodies := map[string][]byte{}
	for _, tg := range targets {
		if bodies[tg.call] != nil {
			continue
		}
		input, err := os.ReadFile(t.inputs[tg.call])
		if err != nil {
			return nil, nil, err
		}
		bodies[tg.call] = append(append([]byte(`{"input": `), input...), '}')
	}
	for _, tg := range targets {
		if err := tg.s.check(bodies[tg.call], tg.call); err != nil {
			return nil, nil, fmt.Errorf("%s, %s: %w", tg.name, tg.call, err)
		}
	}
	p50s, p99s = map[restKey][]float64{}, map[restKey][]float64{}
	for round := range t.rounds {
		order := make([]int, len(targets))
		for i := range order {
			order[i] = i
		}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, c := range clients {
			for _, tg := range targets {
				if _, err := tg.s.latencies(bodies[tg.call], restWarmup, c); err != nil {
					return nil, nil, err
				}
			}
			got := map[restKey][]float64{}
			for range restRequests / restBlock {
				for _, i := range order {
					tg := targets[i]
					l, err := tg.s.latencies(bodies[tg.call], restBlock, c)
					if err != nil {
						return nil, nil, err
					}
					k := restKey{i, c}
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
	return p50s, p99s, nil
}

// check asks the sidecar once: a decision of the library must have the
// code named want, so that the timed requests time that decision.
func (s *sidecar) check(body []byte, want string) error {
	resp, err := restClient.Post(s.url+"/v1/data/"+s.path, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var doc struct{ Result any }
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST: %s %v", resp.Status, err)
	}
	if s.path != "hcp/authz/decision" {
		return nil
	}
	if d, _ := doc.Result.(map[string]any); d == nil || d["code"] != want {
		return fmt.Errorf("answered %v, want code %s", doc.Result, want)
	}
	return nil
}

// latencyREST measures decisions as a sidecar's caller sees them: POSTs to
// OPA's REST API on loopback, one client and four, against the one-rule
// policy served the same way, and with -before the baseline's bundles
// beside this tree's. The table gives the medians of the rounds' p50 and
// p99.
func latencyREST(t *tools, sets map[string]*set) (table, error) {
	tb := table{
		title:  "Decision latency through OPA's REST API (POST /v1/data/..., loopback)",
		header: []string{"policy", "input", "clients", "p50", "ratio", "p99", "ratio"},
	}
	f := &restFleet{t: t}
	defer f.stop()
	serve := f.serve
	if err := serve("one rule", "bench/allow", []string{largeset.Allowed}, t.one); err != nil {
		return tb, err
	}
	floor, err := writeFloor(t, sets["small"])
	if err != nil {
		return tb, err
	}
	if err := serve("document only", "floor/decision", []string{largeset.ConfirmRequired}, floor); err != nil {
		return tb, err
	}
	bundles, err := t.builtBundles(sets["small"], sets["large"])
	if err != nil {
		return tb, err
	}
	for _, b := range bundles {
		if err := serve(b.label(), "hcp/authz/decision", largeset.BenchCalls, "--bundle", b.file); err != nil {
			return tb, err
		}
	}
	clients := []int{1, 4}
	p50s, p99s, err := t.restRounds(f.targets, clients)
	if err != nil {
		return tb, err
	}
	for _, c := range clients {
		base := restKey{0, c}
		b50, b99 := median(p50s[base]), median(p99s[base])
		for i, tg := range f.targets {
			k := restKey{i, c}
			p50, p99 := median(p50s[k]), median(p99s[k])
			tb.rows = append(tb.rows, []string{tg.name, tg.call, fmt.Sprint(c), micros(p50), ratio(p50, b50), micros(p99), ratio(p99, b99)})
		}
	}
	tb.notes = append(tb.notes, "Document only is the one-rule policy answering with the small set's confirm_required document as a constant: what HTTP and a document of that size cost without evaluating the decision. "+setsNote(bundles))
	tb.notes = append(tb.notes, fmt.Sprintf("Each figure is the median over %d rounds of %d requests a target (after %d not counted), asked in blocks of %d that alternate between the targets; ratios are to the one-rule policy at the same concurrency.", t.rounds, restRequests, restWarmup, restBlock))
	if t.before != "" {
		tb.notes = append(tb.notes, "This tree's p50 against the baseline's, same set, call and clients: "+versusBefore(f.targets, clients, p50s)+".")
	}
	return tb, nil
}

// versusBefore says, for each target of this tree's bundle that has a
// baseline's beside it, its median p50 divided by the baseline's.
func versusBefore(targets []restTarget, clients []int, p50s map[restKey][]float64) string {
	var says []string
	for _, c := range clients {
		for i, tg := range targets {
			for j, other := range targets {
				if other.name == tg.name+" (before)" && other.call == tg.call {
					says = append(says, fmt.Sprintf("%s %s at %d: %.2fx", tg.name, tg.call, c, median(p50s[restKey{i, c}])/median(p50s[restKey{j, c}])))
				}
			}
		}
	}
	return strings.Join(says, "; ")
}
