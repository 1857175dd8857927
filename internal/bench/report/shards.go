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
	"strconv"
	"time"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
)

// The shards table's sets: IdP-shaped grants (largeset.IdP) over many
// tenants, as a platform that shards holds them.
var (
	shardSizes = []largeset.Spec{
		{Packs: 1000, Verbs: 50, Triggers: 2, Grants: 1_000_000, GrantFiles: 10, Seed: 4, Shape: largeset.IdP, Tenants: 10_000},
		{Packs: 1000, Verbs: 50, Triggers: 2, Grants: 3_000_000, GrantFiles: 30, Seed: 4, Shape: largeset.IdP, Tenants: 30_000},
	}
	// shardHugeSize is built sharded only (-huge): one sidecar is not
	// meant to hold it, and the unsharded bundle's data passes what OPA
	// reads of one bundle file by default.
	shardHugeSize   = largeset.Spec{Packs: 1000, Verbs: 50, Triggers: 2, Grants: 10_000_000, GrantFiles: 100, Seed: 4, Shape: largeset.IdP, Tenants: 100_000}
	shardQuickSizes = []largeset.Spec{
		{Packs: 50, Verbs: 20, Triggers: 2, Grants: 20_000, GrantFiles: 2, Seed: 4, Shape: largeset.IdP, Tenants: 200},
	}
)

// The layouts the shards table builds: 256 shards for the build and a
// principal's shard, 8 for a cell that holds 2 of them.
const (
	shardsMany = 256
	shardsFew  = 8
)

// shardTenant is the tenant of the principal whose decisions the shards
// table times.
const shardTenant = "t00005"

// shardPrincipalInput is the decision the shards table times:
// principal:u0000005 of tenant t00005 holds some ten grants in each IdP
// set, and role:bench (no tenant: in the policy bundle) lets it read
// command 1 of the first pack, so that the decision reads the tenant's
// tables and is allowed.
func shardPrincipalInput() map[string]any {
	in := largeset.BenchInput(largeset.Allowed)
	in["principal"] = map[string]any{"id": "u0000005", "tenant": shardTenant, "roles": []any{"bench", "r01"}, "projects": []any{"p-1"}}
	in["owner"] = "u0000005"
	return in
}

// shards measures tenant shards on IdP-shaped sets: the build into 256
// shards against the unsharded build of the same grants; OPA's activation
// of the unsharded bundle against the policy bundle with 2 of 8 shards
// and with the principal's 1 of 256; and decisions through OPA's REST API
// with the policy bundle and the principal's shard against the unsharded
// bundle.
func shards(t *tools, _ map[string]*set) (table, error) {
	builds := table{
		title:  "Tenant shards: build (`hcp-rego build --shards 256 -o DIR` against `-o FILE`, the same grants)",
		header: []string{"set", "unsharded", "peak memory", "256 shards", "peak memory", "bundle", "policy bundle", "largest shard"},
	}
	act := table{title: "Tenant shards: activation (`opa run --server` until /health?bundles is 200)", header: []string{"set", "sidecar loads", "activation", "peak memory"}}
	lat := table{title: "Tenant shards: decision latency through OPA's REST API (a principal with a tenant)", header: []string{"set", "sidecar loads", "clients", "p50", "ratio", "p99", "ratio"}}
	sizes := shardSizes
	if t.quick {
		sizes = shardQuickSizes
	}
	if t.huge { // -huge: 10,000,000 grants too
		sizes = append(slices.Clone(sizes), shardHugeSize)
	}
	for _, spec := range sizes {
		sb, err := t.buildShards(spec)
		if err != nil {
			return builds, err
		}
		builds.rows = append(builds.rows, sb.buildRow())
		rows, err := t.shardActivation(sb)
		if err != nil {
			return builds, err
		}
		act.rows = append(act.rows, rows...)
		rows, err = t.shardLatency(sb)
		if err != nil {
			return builds, err
		}
		lat.rows = append(lat.rows, rows...)
		if err := os.RemoveAll(sb.dir); err != nil {
			return builds, err
		}
	}
	builds.notes = append(builds.notes, "Wall time is the median of the rounds (one for a million grants or more); peak memory is the build's highest peak resident set (getrusage). "+
		"A sharded build writes each grant with a tenant to a spill file as it reads it, then builds and writes the shards one bucket at a time: its peak is the packs, the policy bundle and one bucket's grants, whatever the number of grants. "+
		"The 10,000,000 grants of -huge are built sharded only, with --max-source-bytes raised to the set's size.")
	act.notes = append(act.notes, fmt.Sprintf("Medians of %d runs each, interleaved; peak memory is the sidecar's VmHWM once active, the highest of the runs.", min(t.rounds, 3)))
	lat.notes = append(lat.notes, fmt.Sprintf("The principal (tenant "+shardTenant+") is allowed on both; ratios are to the unsharded bundle at the same concurrency, the target at most 1.05x. Each figure is the median over %d rounds of %d requests a sidecar (after %d not counted), asked in blocks of %d that alternate between the sidecars.", t.rounds, restRequests, restWarmup, restBlock))
	act.more = []table{lat}
	builds.more = []table{act}
	return builds, nil
}

// shardBuild is one IdP set built three ways.
type shardBuild struct {
	label, dir     string
	unsharded      string // the unsharded bundle
	many, few      string // the folders of 256 and 8 shards
	plain, sharded measured
	shard          int // the principal's shard of 256
}

// buildShards writes an IdP set and builds it unsharded, into 256 shards
// and into 8, timing the first two: interleaved, the median of up to
// three rounds (one from a million grants on), and the highest peak.
func (t *tools) buildShards(spec largeset.Spec) (*shardBuild, error) {
	name := fmt.Sprintf("idp%d", spec.Grants)
	sb := &shardBuild{
		label: fmt.Sprintf("%d grants over %d tenants", spec.Grants, spec.Tenants),
		dir:   filepath.Join(t.work, name),
		shard: compile.Shard(shardTenant, shardsMany),
	}
	sb.unsharded = filepath.Join(sb.dir, "unsharded.tar.gz")
	sb.many, sb.few = filepath.Join(sb.dir, "shards-256"), filepath.Join(sb.dir, "shards-8")
	files, err := largeset.Write(filepath.Join(sb.dir, "set"), spec)
	if err != nil {
		return nil, fmt.Errorf("write set %s: %w", name, err)
	}
	s := &set{spec: spec, files: files}
	rounds := min(t.rounds, 3)
	if spec.Grants >= 1_000_000 {
		rounds = 1
	}
	var plain, sharded []float64
	args := s.args()
	if spec.Grants > shardHugeSize.Grants/2 {
		sb.unsharded = ""
		args = append(args, "--max-source-bytes", strconv.FormatInt(setBytes(files)*2, 10))
	}
	for range rounds {
		if sb.unsharded != "" {
			p, err := t.exec(t.hcp, append([]string{"build", "-o", sb.unsharded}, args...)...)
			if err != nil {
				return nil, err
			}
			plain = append(plain, p.seconds)
			sb.plain.peakKB = max(sb.plain.peakKB, p.peakKB)
		}
		sh, err := t.exec(t.hcp, append([]string{"build", "--shards", strconv.Itoa(shardsMany), "-o", sb.many}, args...)...)
		if err != nil {
			return nil, err
		}
		sharded = append(sharded, sh.seconds)
		sb.sharded.peakKB = max(sb.sharded.peakKB, sh.peakKB)
	}
	if len(plain) > 0 {
		sb.plain.seconds = median(plain)
	}
	sb.sharded.seconds = median(sharded)
	_, err = t.exec(t.hcp, append([]string{"build", "--shards", strconv.Itoa(shardsFew), "-o", sb.few}, args...)...)
	return sb, err
}

// buildRow is the build table's row: times, peaks and bundle sizes.
func (sb *shardBuild) buildRow() []string {
	largest := int64(0)
	for k := range shardsMany {
		largest = max(largest, fileSize(filepath.Join(sb.many, fmt.Sprintf("shard-%d.tar.gz", k))))
	}
	plain, peak, bundle := "not built", "", ""
	if sb.unsharded != "" {
		plain, peak, bundle = seconds(sb.plain.seconds), mib(sb.plain.peakKB), size(fileSize(sb.unsharded))
	}
	return []string{
		sb.label, plain, peak, seconds(sb.sharded.seconds), mib(sb.sharded.peakKB),
		bundle, size(fileSize(filepath.Join(sb.many, "hcp.tar.gz"))), size(largest),
	}
}

// setBytes is the bytes of a set's grant files.
func setBytes(files *largeset.Set) int64 {
	var n int64
	for _, f := range files.GrantFiles {
		n += fileSize(f)
	}
	return n
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// size is a file's size in MB, or in KB below one MB.
func size(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// loads are the sidecars the activation table starts: the label and the
// bundles of each; the unsharded bundle first, when it was built.
func (sb *shardBuild) loads() [][]string {
	var unsharded [][]string
	if sb.unsharded != "" {
		unsharded = [][]string{{"unsharded bundle", sb.unsharded}}
	}
	return append(unsharded, [][]string{
		{"policy bundle + 2 of 8 shards", filepath.Join(sb.few, "hcp.tar.gz"), filepath.Join(sb.few, "shard-0.tar.gz"), filepath.Join(sb.few, "shard-1.tar.gz")},
		{"policy bundle + 1 of 256 shards", filepath.Join(sb.many, "hcp.tar.gz"), filepath.Join(sb.many, fmt.Sprintf("shard-%d.tar.gz", sb.shard))},
	}...)
}

// shardActivation activates each of sb's loads, interleaved.
func (t *tools) shardActivation(sb *shardBuild) ([][]string, error) {
	loads := sb.loads()
	secs := make([][]float64, len(loads))
	peaks := make([]int64, len(loads))
	for range min(t.rounds, 3) {
		for i, l := range loads {
			s, kb, err := t.activate(l[1:]...)
			if err != nil {
				return nil, err
			}
			secs[i], peaks[i] = append(secs[i], s), max(peaks[i], kb)
		}
	}
	var rows [][]string
	for i, l := range loads {
		rows = append(rows, []string{sb.label, l[0], seconds(median(secs[i])), mib(peaks[i])})
	}
	return rows, nil
}

// shardLatency times the principal's decision on the unsharded bundle and
// on the policy bundle with the principal's shard, as latencyREST does:
// keep-alive clients, blocks alternating between the sidecars, the median
// of the rounds' p50 and p99.
func (t *tools) shardLatency(sb *shardBuild) ([][]string, error) {
	if sb.unsharded == "" {
		return nil, nil
	}
	loads := sb.loads()
	targets := [][]string{loads[0], loads[2]}
	servers := make([]*sidecar, len(targets))
	defer func() {
		for _, s := range servers {
			if s != nil {
				s.stop()
			}
		}
	}()
	input, err := json.Marshal(map[string]any{"input": shardPrincipalInput()})
	if err != nil {
		return nil, err
	}
	for i, tg := range targets {
		var args []string
		for _, b := range tg[1:] {
			args = append(args, "--bundle", b)
		}
		if servers[i], err = t.startSidecar("hcp/authz/decision", args...); err != nil {
			return nil, err
		}
		if err := servers[i].wantCode(input, "allowed"); err != nil {
			return nil, fmt.Errorf("%s, %s: %w", sb.label, tg[0], err)
		}
	}
	type key struct{ target, clients int }
	p50s, p99s := map[key][]float64{}, map[key][]float64{}
	for range t.rounds {
		for _, clients := range []int{1, 4} {
			for _, s := range servers {
				if _, err := s.latencies(input, restWarmup, clients); err != nil {
					return nil, err
				}
			}
			got := map[key][]float64{}
			for range restRequests / restBlock {
				for i, s := range servers {
					l, err := s.latencies(input, restBlock, clients)
					if err != nil {
						return nil, err
					}
					got[key{i, clients}] = append(got[key{i, clients}], l...)
				}
			}
			for k, l := range got {
				slices.Sort(l)
				p50s[k] = append(p50s[k], l[len(l)/2])
				p99s[k] = append(p99s[k], l[len(l)*99/100])
			}
		}
	}
	var rows [][]string
	for _, clients := range []int{1, 4} {
		b50, b99 := median(p50s[key{0, clients}]), median(p99s[key{0, clients}])
		for i, tg := range targets {
			p50, p99 := median(p50s[key{i, clients}]), median(p99s[key{i, clients}])
			rows = append(rows, []string{sb.label, tg[0], fmt.Sprint(clients), micros(p50), ratio2(p50, b50), micros(p99), ratio2(p99, b99)})
		}
	}
	return rows, nil
}

// wantCode asks the sidecar for one decision on body and checks its code,
// so that the timed requests time that decision and not another (a
// sidecar without the principal's shard answers tenant_unavailable).
func (s *sidecar) wantCode(body []byte, code string) error {
	resp, err := restClient.Post(s.url+"/v1/data/"+s.path, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var out struct {
		Result struct {
			Code string `json:"code"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return fmt.Errorf("read the decision: %w", err)
	}
	if out.Result.Code != code {
		return fmt.Errorf("decides %q, want %q: %s", out.Result.Code, code, data)
	}
	return nil
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
