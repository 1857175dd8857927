package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// tools are the programs the report runs: hcp-rego built from this tree,
// and the OPA pinned by go.mod's tool line.
type tools struct {
	ctx    context.Context
	work   string
	hcp    string
	opa    string
	inputs map[string]string // allowed, confirm: input files
	one    string            // the one-rule policy folder
	rounds int               // runs of each measurement
	quick  bool              // smaller sets and shorter runs
	layout string            // the rollout table's bundle layout (-layout)
}

func newTools(ctx context.Context, work string, rounds int) (*tools, error) {
	t := &tools{ctx: ctx, work: work, hcp: filepath.Join(work, "hcp-rego"), inputs: map[string]string{}, rounds: max(rounds, 1)}
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", t.hcp, "./cmd/hcp-rego").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build hcp-rego: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(ctx, "go", "tool", "-n", "opa").Output()
	if err != nil {
		return nil, fmt.Errorf("find the pinned opa (go tool -n opa): %w", err)
	}
	t.opa = strings.TrimSpace(string(out))
	if err := t.writeInputs(); err != nil {
		return nil, err
	}
	return t, nil
}

// measured is one finished subprocess: wall time and peak resident memory.
type measured struct {
	seconds float64
	peakKB  int64
	stdout  []byte
}

// exec runs a program to the end and measures it.
func (t *tools) exec(name string, args ...string) (measured, error) {
	cmd := exec.CommandContext(t.ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := measured{seconds: time.Since(start).Seconds(), stdout: stdout.Bytes()}
	if usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.peakKB = usage.Maxrss
	}
	if err != nil {
		return r, fmt.Errorf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	return r, nil
}

// opaBench runs `opa bench` and returns the median evaluation time and the
// mean time an operation takes, both in ns.
func (t *tools) opaBench(query, input string, target ...string) (median, perOp float64, err error) {
	args := append([]string{"bench", "--format", "json", "-i", input, "--count", "1"}, target...)
	r, err := t.exec(t.opa, append(args, query)...)
	if err != nil {
		return 0, 0, err
	}
	var res struct {
		N     float64
		T     float64
		Extra map[string]float64
	}
	if err := json.Unmarshal(r.stdout, &res); err != nil {
		return 0, 0, fmt.Errorf("read opa bench output: %w", err)
	}
	return res.Extra["histogram_timer_rego_query_eval_ns_median"], res.T / res.N, nil
}

// activate starts `opa run --server` on a bundle and returns the seconds
// until /health?bundles answers 200 and the server's peak memory then.
func (t *tools) activate(bundles ...string) (float64, int64, error) {
	port, err := freePort()
	if err != nil {
		return 0, 0, err
	}
	args := []string{"run", "--server", "--addr", fmt.Sprintf("127.0.0.1:%d", port)}
	for _, b := range bundles {
		args = append(args, "--bundle", b)
	}
	cmd := exec.CommandContext(t.ctx, t.opa, args...)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	url := fmt.Sprintf("http://127.0.0.1:%d/health?bundles", port)
	for time.Since(start) < 60*time.Second {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(start).Seconds(), peakRSS(cmd.Process.Pid), nil
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0, 0, fmt.Errorf("opa did not activate %v within 60 s", bundles)
}

// peakRSS reads a process's peak resident memory (VmHWM) in KB.
func peakRSS(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		var kb int64
		if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &kb); err == nil {
			return kb
		}
	}
	return 0
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
