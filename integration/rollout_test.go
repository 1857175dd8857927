package integration

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// answer is one decision asked of a sidecar under load.
type answer struct {
	start time.Time
	doc   any    // the decision document, when the request succeeded
	err   string // why it failed, else ""
}

// load asks a sidecar for carol's decision from concurrent clients until
// ended, keeping every answer.
type load struct {
	mu      sync.Mutex
	answers []answer
	stop    chan struct{}
	halt    sync.Once
	wg      sync.WaitGroup
}

// startLoad starts clients concurrent clients on the sidecar at url,
// until end or the end of the test.
func startLoad(t *testing.T, url string, clients int) *load {
	body, _ := json.Marshal(map[string]any{"input": json.RawMessage(carol)})
	l := &load{stop: make(chan struct{})}
	t.Cleanup(func() { l.end() })
	for range clients {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			client := &http.Client{Timeout: 5 * time.Second}
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				a := ask(client, url+"/v1/data/hcp/authz/decision", body)
				l.mu.Lock()
				l.answers = append(l.answers, a)
				l.mu.Unlock()
				time.Sleep(2 * time.Millisecond) // bounded: a few hundred requests a second
			}
		}()
	}
	return l
}

// await waits until n answers started after since (a hang breaker fails
// the test after loadTimeout): the load spans a moment by what it asked
// then, not by how long it ran.
func (l *load) await(t *testing.T, n int, since time.Time) {
	t.Helper()
	giveUp := time.Now().Add(loadTimeout)
	for {
		l.mu.Lock()
		got := 0
		for _, a := range l.answers {
			if a.start.After(since) {
				got++
			}
		}
		l.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(giveUp) {
			t.Fatalf("%d answers under load after %v, want %d", got, loadTimeout, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// loadTimeout is await's hang breaker.
const loadTimeout = 2 * time.Minute

// end stops the clients and returns every answer.
func (l *load) end() []answer {
	l.halt.Do(func() { close(l.stop) })
	l.wg.Wait()
	return l.answers
}

// ask POSTs one decision request.
func ask(client *http.Client, url string, body []byte) answer {
	a := answer{start: time.Now()}
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		a.err = err.Error()
		return a
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	var doc struct{ Result any }
	switch {
	case err != nil:
		a.err = err.Error()
	case resp.StatusCode != http.StatusOK:
		a.err = resp.Status + ": " + string(data)
	case json.Unmarshal(data, &doc) != nil || doc.Result == nil:
		a.err = "no decision: " + string(data)
	}
	a.doc = doc.Result
	return a
}

// TestRolloutUnderLoad rolls r2 out to a sidecar that answers four
// concurrent clients the whole time, with an input whose answer r2
// changes, beside a runtime bundle (root hcp/ext) that it polls from a
// bundle server: no request fails, every answer is r1's or r2's, and once
// status says the sidecar runs r2, only r2's; the runtime's rules still
// apply. The sidecar logs its decisions to the console: a logged decision
// names the bundle revision and the policy row and grant that decided it.
func TestRolloutUnderLoad(t *testing.T) {
	t.Parallel()
	reg, docker, ref, r1, r2 := twoRevisions(t)
	hub := newBundleServer(t)
	hub.set("/bundles/ext.tar.gz", extTarball(t))
	config := withExtBundle(ociSidecarConfig(t, reg.addr, ref), hub.URL)
	config["decision_logs"] = map[string]any{"console": true}
	config["status"] = map[string]any{"console": true}
	data, _ := json.Marshal(config)
	s := startOPA(t, "--config-file", writeFile(t, "opa.json", data))
	sidecars := []*server{s}

	hcpRego(t, docker, "push", r1, ref, "--plain-http").must(t, "push r1")
	converge(t, sidecars, "r1")
	s.waitFor(t, "the runtime bundle", pollTimeout, func() bool { return s.revision(t, "ext") != "" })
	client := &http.Client{Timeout: 5 * time.Second}
	body, _ := json.Marshal(map[string]any{"input": json.RawMessage(carol)})
	before := ask(client, s.url+"/v1/data/hcp/authz/decision", body)
	if before.err != "" {
		t.Fatal(before.err)
	}

	l := startLoad(t, s.url, 4)
	l.await(t, 100, time.Time{}) // load on r1 first
	hcpRego(t, docker, "push", r2, ref, "--plain-http").must(t, "push r2")
	res, _ := status(t, sidecars, "--want-revision", "r2", "--wait", "40s")
	converged := time.Now()
	l.await(t, 300, converged) // load on r2
	answers := l.end()
	if res.code != 0 {
		t.Fatalf("status --want-revision r2 --wait 40s: exit %d\n%s", res.code, res.stdout)
	}
	after := ask(client, s.url+"/v1/data/hcp/authz/decision", body)
	r1Doc, r2Doc := before.doc, after.doc
	if code(r1Doc) != "capability_required" || code(r2Doc) != "allowed" {
		t.Fatalf("r1 decides %v and r2 %v: the load would prove nothing", r1Doc, r2Doc)
	}

	var failed, neither, lateR1, onR1, onR2 int
	for _, a := range answers {
		switch {
		case a.err != "":
			failed++
			if failed <= 3 {
				t.Errorf("a request failed during the rollout: %s", a.err)
			}
		case reflect.DeepEqual(a.doc, r2Doc):
			onR2++
		case !reflect.DeepEqual(a.doc, r1Doc):
			neither++
			t.Errorf("an answer that is neither r1's nor r2's: %v", a.doc)
		case a.start.After(converged):
			lateR1++
		default:
			onR1++
		}
	}
	t.Logf("%d requests: %d on r1, %d on r2, %d failed", len(answers), onR1, onR2, failed)
	if lateR1 > 0 {
		t.Errorf("%d requests sent after status said r2 were answered as r1", lateR1)
	}
	if onR1 == 0 || onR2 == 0 {
		t.Errorf("%d answers on r1 and %d on r2: the load did not span the rollout", onR1, onR2)
	}

	// The console decision log names the revision, the row and the grant.
	s.waitFor(t, "a logged r2 decision", pollTimeout, func() bool { return loggedDecision(t, s.logs.String(), "r2") != nil })
	logged := loggedDecision(t, s.logs.String(), "r2")
	source, _ := logged["result"].(map[string]any)["source"].(map[string]any)
	if source["row"] != "../testdata/packs/mail/policy.json:6" || source["grant"] != "../testdata/grants/defaults.json:4" {
		t.Errorf("the logged decision's source is %v, want the mail row and the default grant", source)
	}
	if code := s.code(t, frozenCall); code != "runtime_denied" {
		t.Errorf("on r2 beside the runtime bundle: %s, want runtime_denied", code)
	}
}

// frozenCall is a call the example grants allow and the runtime bundle
// testdata/ext denies.
const frozenCall = `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "verb_key": "mail.list", "owner": "bob", "runtime": {"deny": ["frozen"]}}`

// withExtBundle adds to an OPA configuration the runtime bundle "ext"
// (root hcp/ext), polled every second from the bundle server at url.
func withExtBundle(config map[string]any, url string) map[string]any {
	config = maps.Clone(config)
	services := maps.Clone(config["services"].(map[string]any))
	services["hub"] = map[string]any{"url": url}
	config["services"] = services
	bundles := maps.Clone(config["bundles"].(map[string]any))
	bundles["ext"] = map[string]any{
		"service":  "hub",
		"resource": "bundles/ext.tar.gz",
		"polling":  map[string]any{"min_delay_seconds": 1, "max_delay_seconds": 1},
	}
	config["bundles"] = bundles
	return config
}

// loggedDecision is the last decision of hcp/authz/decision that OPA's
// console decision log shows under revision rev of the bundle hcp, nil
// when there is none.
func loggedDecision(t *testing.T, logs, rev string) map[string]any {
	t.Helper()
	var last map[string]any
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, `"msg":"Decision Log"`) || !strings.Contains(line, `"path":"hcp/authz/decision"`) {
			continue
		}
		var event struct {
			Path    string                               `json:"path"`
			Bundles map[string]struct{ Revision string } `json:"bundles"`
			Result  any                                  `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &event); err != nil {
			t.Fatalf("a decision log line that is not JSON: %v\n%s", err, line)
		}
		if event.Path == "hcp/authz/decision" && event.Bundles["hcp"].Revision == rev {
			last = map[string]any{"result": event.Result}
		}
	}
	return last
}

// code is a decision document's code.
func code(doc any) string {
	m, _ := doc.(map[string]any)
	c, _ := m["code"].(string)
	return c
}
