package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
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
	inputs map[string]string // input files, by largeset.BenchCalls
	one    string            // the one-rule policy folder
	rounds int               // runs of each measurement
	quick  bool              // smaller sets and shorter runs
	huge   bool              // the grants table's 3,000,000 too (-huge)
	layout string            // the rollout table's bundle layout (-layout)
	// before is an hcp-rego built from another commit (-before), whose
	// bundles the tables that can measure them measure beside this
	// tree's; "" for none.
	before string
	// written are the sets that tables wrote for themselves, by name.
	written map[string]*set
}

func newTools(ctx context.Context, work string, rounds int) (*tools, error) {
	t := &tools{ctx: ctx, work: work, hcp: filepath.Join(work, "hcp-rego"), inputs: map[string]string{}, written: map[string]*set{}, rounds: max(rounds, 1)}
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
	ownPeakOnly()
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

// benched is one `opa bench` run: the median evaluation time and the
// mean time an operation takes, in ns, and the allocations an operation.
type benched struct{ median, perOp, allocs float64 }

// opaBench runs `opa bench` and reads what it measured.
func (t *tools) opaBench(query, input string, target ...string) (benched, error) {
	args := append([]string{"bench", "--format", "json", "-i", input, "--count", "1"}, target...)
	r, err := t.exec(t.opa, append(args, query)...)
	if err != nil {
		return benched{}, err
	}
	var res struct {
		N, T, MemAllocs float64
		Extra           map[string]float64
	}
	if err := json.Unmarshal(r.stdout, &res); err != nil {
		return benched{}, fmt.Errorf("read opa bench output: %w", err)
	}
	return benched{res.Extra["histogram_timer_rego_query_eval_ns_median"], res.T / res.N, res.MemAllocs / res.N}, nil
}

// ownPeakOnly makes the peak that Linux reports for the next child this
// process starts the child's own. A child started by Go's vfork-style
// clone takes this process's peak resident memory (its mm's high-water
// mark, copied to the child at exec) as its own peak's floor, so a build
// after an evaluator of a million grants was held here would report that
// evaluator's memory. The heap is returned to the kernel and this
// process's peak reset to what it holds then, a few tens of MB.
func ownPeakOnly() {
	debug.FreeOSMemory()
	resetPeak(os.Getpid())
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
