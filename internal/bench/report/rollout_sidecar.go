package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hcp-rego/hcp-rego/internal/syncbuf"
)

// replaceTimeout bounds each wait for a revision to be active: the old
// layout took minutes to replace the large set.
const replaceTimeout = 15 * time.Minute

// clockTicks is Linux's USER_HZ, the unit of /proc/PID/stat's times: 100
// on every architecture Go builds for.
const clockTicks = 100

// hub is the rollout table's bundle server: one bundle file, served with
// an ETag and a 304 to a poll that names it, and the time it first sent
// the current file, which is when the sidecar began to fetch it.
type hub struct {
	*httptest.Server
	mu   sync.Mutex
	data []byte
	etag string
	sent time.Time // zero until the current file is sent
}

func newHub() *hub {
	h := &hub{}
	h.Server = httptest.NewServer(http.HandlerFunc(h.serve))
	return h
}

// set serves data from now on.
func (h *hub) set(data []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.data, h.etag, h.sent = data, fmt.Sprintf(`"%x"`, sha256.Sum256(data)), time.Time{}
}

// sentAt is when the current file was first sent, zero before.
func (h *hub) sentAt() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sent
}

func (h *hub) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/bundles/hcp.tar.gz" {
		http.NotFound(w, r)
		return
	}
	h.mu.Lock()
	data, etag := h.data, h.etag
	if r.Header.Get("If-None-Match") != etag && h.sent.IsZero() {
		h.sent = time.Now()
	}
	h.mu.Unlock()
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", etag)
	w.Header().Set("Content-Type", "application/gzip")
	w.Write(data)
}

// pollingSidecar is `opa run --server` polling the hub for the bundle
// hcp every pollSeconds.
type pollingSidecar struct {
	url    string
	cmd    *exec.Cmd
	start  time.Time
	exited chan error
	logs   syncbuf.Buffer
}

// startPolling starts a sidecar configured to poll the hub at url.
func (t *tools) startPolling(url string) (*pollingSidecar, error) {
	config, _ := json.Marshal(map[string]any{
		"services": map[string]any{"hub": map[string]any{"url": url}},
		"bundles": map[string]any{"hcp": map[string]any{"service": "hub", "resource": "bundles/hcp.tar.gz",
			"polling": map[string]any{"min_delay_seconds": pollSeconds, "max_delay_seconds": pollSeconds}}},
	})
	configFile := filepath.Join(t.work, "rollout-sidecar.json")
	if err := os.WriteFile(configFile, config, 0o644); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	s := &pollingSidecar{url: "http://" + listen, exited: make(chan error, 1)}
	s.cmd = exec.CommandContext(t.ctx, t.opa, "run", "--server", "--addr", listen, "--log-level", "error", "--config-file", configFile)
	s.cmd.Stdout, s.cmd.Stderr = &s.logs, &s.logs
	s.start = time.Now()
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.exited <- s.cmd.Wait() }()
	return s, nil
}

func (s *pollingSidecar) stop() {
	s.cmd.Process.Kill()
	<-s.exited
}

// waitRevision waits until the sidecar runs revision want of the bundle
// hcp, asking every 10 ms.
func (s *pollingSidecar) waitRevision(want string) error {
	deadline := time.Now().Add(replaceTimeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.exited:
			s.exited <- err
			return fmt.Errorf("opa exited (%v) before revision %s was active\n%s", err, want, s.logs.String())
		default:
		}
		if rev, ok := revision(s.url); ok && rev == want {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("revision %s not active after %v\n%s", want, replaceTimeout, s.logs.String())
}

// phase is one activation, fresh or replacing.
type phase struct {
	wall       float64 // s: from the fetch (a fresh start: from the process's start)
	fromSwap   float64 // s: from the swap of the file served
	cpu        float64 // the sidecar's CPU-seconds
	peakKB     int64   // its peak resident memory since the reset
	residentKB int64   // its resident memory at the end
	peakReset  bool    // whether the peak was reset first
}

// freshPhase measures the fresh start that just ended: all the process's
// time, CPU and peak so far.
func (s *pollingSidecar) freshPhase() (phase, error) {
	pid := s.cmd.Process.Pid
	p := phase{wall: time.Since(s.start).Seconds(), peakKB: peakRSS(pid), residentKB: residentKB(pid)}
	var err error
	p.cpu, err = processCPU(pid)
	return p, err
}

// replace swaps the hub's file for rev and measures until the sidecar
// runs it; it returns too when the sidecar began to fetch it and when it
// was seen active.
func (s *pollingSidecar) replace(h *hub, rev *revisionFile) (p phase, fetched, active time.Time, err error) {
	pid := s.cmd.Process.Pid
	p.peakReset = resetPeak(pid)
	before, err := processCPU(pid)
	if err != nil {
		return p, fetched, active, err
	}
	swap := time.Now()
	h.set(rev.data)
	if err := s.waitRevision(rev.name); err != nil {
		return p, fetched, active, err
	}
	active = time.Now()
	after, err := processCPU(pid)
	fetched = h.sentAt()
	p.wall, p.fromSwap = active.Sub(fetched).Seconds(), active.Sub(swap).Seconds()
	p.cpu, p.peakKB, p.residentKB = after-before, peakRSS(pid), residentKB(pid)
	return p, fetched, active, err
}

// processCPU is the CPU-seconds a process has used, user and system.
func processCPU(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which may hold spaces: state is
	// the first, utime and stime the 12th and 13th.
	_, rest, _ := strings.Cut(string(data), ") ")
	fields := strings.Fields(rest)
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields))
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", pid, fields[11], fields[12])
	}
	return float64(utime+stime) / clockTicks, nil
}

// resetPeak resets a process's peak resident memory (VmHWM) to what it
// holds now, by writing 5 to /proc/PID/clear_refs, and reports whether
// the kernel did: the peak is then within a little of the resident size.
func resetPeak(pid int) bool {
	if os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) != nil {
		return false
	}
	return peakRSS(pid) <= residentKB(pid)+4096
}

// residentKB is a process's resident memory now (VmRSS), in KB.
func residentKB(pid int) int64 {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(data), "\n") {
		var kb int64
		if _, err := fmt.Sscanf(line, "VmRSS: %d kB", &kb); err == nil {
			return kb
		}
	}
	return 0
}

// answer is one decision the client asked for.
type answer struct {
	start, end time.Time
	input      int    // the index of its input
	doc        string // the decision, normalized JSON; "" when it failed
	err        string // why it failed
}

// askContinuously posts decisions to url from one client, one after
// another, cycling over bodies, until stop is closed; then it sends every
// answer on the channel it returns.
func askContinuously(url string, bodies [][]byte, stop <-chan struct{}) <-chan []answer {
	done := make(chan []answer, 1)
	go func() {
		client := &http.Client{Timeout: replaceTimeout}
		var answers []answer
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- answers
				return
			default:
			}
			answers = append(answers, askOne(client, url, i%len(bodies), bodies[i%len(bodies)]))
		}
	}()
	return done
}

// askOne posts one decision request and reads its answer.
func askOne(client *http.Client, url string, input int, body []byte) answer {
	a := answer{start: time.Now(), input: input}
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		a.err = err.Error()
		a.end = time.Now()
		return a
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	a.end = time.Now()
	var doc struct{ Result any }
	switch {
	case err != nil:
		a.err = err.Error()
	case resp.StatusCode != http.StatusOK:
		a.err = resp.Status + ": " + string(data)
	case json.Unmarshal(data, &doc) != nil || doc.Result == nil:
		a.err = "no decision: " + string(data)
	default:
		a.doc = normalJSON(doc.Result)
	}
	return a
}

// loadedPhase is a replacement under one client's decisions.
type loadedPhase struct {
	phase
	decisions int      // asked between the fetch and active
	p50, p99  float64  // their latency, ns
	wrong     []string // each wrong answer, said
}

// judge checks every answer of a replacement of old by next: one that
// ended before the fetch must be old's, one that started once next was
// seen active next's, any other either's; and it takes the latency of
// those asked during the replacement.
func judge(answers []answer, old, next *revisionFile, fetched, active time.Time) loadedPhase {
	var l loadedPhase
	var during []float64
	for _, a := range answers {
		want := []string{old.answers[a.input], next.answers[a.input]}
		switch {
		case a.end.Before(fetched):
			want = want[:1]
		case a.start.After(active):
			want = want[1:]
		}
		if a.err != "" || !slices.Contains(want, a.doc) {
			l.wrong = append(l.wrong, fmt.Sprintf("input %d answered %s%s, want one of %v", a.input, a.doc, a.err, want))
		}
		if !a.start.Before(fetched) && !a.start.After(active) {
			during = append(during, float64(a.end.Sub(a.start).Nanoseconds()))
		}
	}
	l.decisions = len(during)
	if len(during) > 0 {
		slices.Sort(during)
		l.p50, l.p99 = during[len(during)/2], during[len(during)*99/100]
	}
	return l
}
