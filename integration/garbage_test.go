package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/garbagetest"
)

// readGarbage reads the rego tests' garbage corpus (see garbagetest).
func readGarbage(t *testing.T) garbagetest.Corpus {
	t.Helper()
	c, err := garbagetest.Read("../rego/testdata/garbage.json")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// What a sidecar must answer for any malformed input: the whole decision
// (garbagetest.Invalid with the input's problems), allow, and the GPARS
// error, exactly.
var wantInvalidGPARS = map[string]any{"code": float64(-32001), "message": "The request is not permitted for this agent.", "data": map[string]any{"gpars_code": "AUTHORIZATION_DENIED"}}

// TestSidecarGarbage asks a real OPA, serving our bundle beside the
// runtime bundle testdata/ext, about every garbage input, and about a
// request with no input at all: decision is exactly invalid_input, allow
// false and gpars_error the fixed "The request is not permitted" error;
// the embedded evaluator answers the same.
func TestSidecarGarbage(t *testing.T) {
	t.Parallel()
	c := readGarbage(t)
	tarball := buildFile(t, exampleModel(t, acme, defaults), "", nil)
	d := newDeciders(t, tarball)
	s := startOPA(t, "--bundle", tarball, "--bundle", extDir)
	s.waitHealthy(t)
	for _, in := range []any{c.Allowed, c.AllowedStimulus} {
		if got := normal(s.query(t, "hcp/authz/decision", in)).(map[string]any); got["code"] != "allowed" {
			t.Fatalf("the corpus's base call %s is %v over REST, want allowed: the garbage would prove nothing", text(in), got["code"])
		}
	}
	for _, g := range c.Garbage {
		got := map[string]any{
			"decision":    normal(s.query(t, "hcp/authz/decision", g.Input)),
			"allow":       normal(s.query(t, "hcp/authz/allow", g.Input)),
			"gpars_error": normal(s.query(t, "hcp/authz/gpars_error", g.Input)),
		}
		want := map[string]any{"decision": normal(garbagetest.Invalid(g.Reasons)), "allow": false, "gpars_error": normal(wantInvalidGPARS)}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: OPA answers %s, want %s", g.Name, text(got), text(want))
		}
		res, err := d.embedded.Decide(context.Background(), g.Input)
		if err != nil {
			t.Fatalf("%s: %v", g.Name, err)
		}
		if !reflect.DeepEqual(normal(res.Decision.Doc), want["decision"]) {
			t.Errorf("%s: the embedded evaluator decides %s", g.Name, text(res.Decision.Doc))
		}
	}
	noInput := normal(garbagetest.Invalid([]string{"top level: must be an object"}))
	for _, body := range []string{`{}`, `{"input": null}`, ``} {
		if got := normal(s.post(t, "hcp/authz/decision", body)); !reflect.DeepEqual(got, noInput) {
			t.Errorf("request body %q: decision %s, want %s", body, text(got), text(noInput))
		}
		if got := normal(s.post(t, "hcp/authz/gpars_error", body)); !reflect.DeepEqual(got, normal(wantInvalidGPARS)) {
			t.Errorf("request body %q: gpars_error %s, want %s", body, text(got), text(wantInvalidGPARS))
		}
	}
}

// post POSTs a raw request body to /v1/data/<path> and returns the result.
func (s *server) post(t *testing.T, path, body string) any {
	t.Helper()
	resp, err := http.Post(s.url+"/v1/data/"+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return s.result(t, resp)
}

// TestSidecarGPARSErrorLeaksNothing asks a real OPA for the GPARS error of
// every refused call of the corpus (every deny code) and reads the raw
// REST answer: its result has exactly code, message and data, data exactly
// gpars_code, the message is one of the two fixed sentences, and nothing
// names a capability, a grant, a role, a tenant, a policy file or the
// caller.
func TestSidecarGPARSErrorLeaksNothing(t *testing.T) {
	t.Parallel()
	tarball := buildFile(t, exampleModel(t, acme, defaults), "", nil)
	s := startOPA(t, "--bundle", tarball, "--bundle", extDir)
	s.waitHealthy(t)
	codes := map[string]bool{}
	for _, c := range corpus {
		if c.code == "allowed" || c.code == "confirm_required" {
			continue
		}
		codes[c.code] = true
		input := decode(t, c.input)
		body, _ := json.Marshal(map[string]any{"input": input})
		resp, err := http.Post(s.url+"/v1/data/hcp/authz/gpars_error", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var answer struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(raw, &answer); err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, raw)
		}
		checkGPARSError(t, c, input, answer.Result)
	}
	for _, code := range []string{"invalid_input", "unknown_command", "pack_unavailable", "capability_required", "land_denied", "runtime_denied"} {
		if !codes[code] {
			t.Errorf("the corpus has no %s call: its GPARS error goes unchecked", code)
		}
	}
}

// checkGPARSError holds one REST result to the GPARS error's exact shape
// and to saying nothing of the policy, the grants or the caller.
func checkGPARSError(t *testing.T, c call, input any, result map[string]json.RawMessage) {
	t.Helper()
	if keys := slices.Sorted(maps.Keys(result)); !slices.Equal(keys, []string{"code", "data", "message"}) {
		t.Fatalf("%s: gpars_error has members %q, want exactly code, data, message", c.name, keys)
	}
	var data map[string]any
	var message string
	json.Unmarshal(result["data"], &data)
	json.Unmarshal(result["message"], &message)
	if keys := slices.Sorted(maps.Keys(data)); !slices.Equal(keys, []string{"gpars_code"}) {
		t.Errorf("%s: gpars_error.data has members %q, want exactly gpars_code", c.name, keys)
	}
	doc, _ := input.(map[string]any)
	key, _ := doc["verb_key"].(string)
	if key == "" {
		key, _ = doc["stimulus"].(string)
	}
	pack, _ := doc["pack_id"].(string)
	wantMessage := key + " is not permitted for this agent."
	switch c.code {
	case "invalid_input":
		wantMessage = "The request is not permitted for this agent."
	case "pack_unavailable":
		wantMessage = "MCP server '" + pack + "' is not reachable."
	}
	if message != wantMessage {
		t.Errorf("%s: message %q, want %q", c.name, message, wantMessage)
	}
	all := string(result["code"]) + string(result["data"]) + message
	principal, _ := doc["principal"].(map[string]any)
	secrets := []string{"verb.exec", "pack.connect", "sense.enable", "capab", "grant", "role", "tenant", "policy", ".json", "principal", "member", "admin", "acme"}
	if id, _ := principal["id"].(string); id != "" {
		secrets = append(secrets, id)
	}
	for _, secret := range secrets {
		if strings.Contains(strings.ToLower(all), secret) {
			t.Errorf("%s: gpars_error leaks %q: %s", c.name, secret, all)
		}
	}
}
