package rego_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/reference"
)

// TestGPARSErrorFields checks the GPARS error of every deny code
// (docs/decisions.md#the-decision-document): exactly code, message and
// data.gpars_code, the message fixed but for the key or pack, and nothing
// of the policy, the grants or the capability.
func TestGPARSErrorFields(t *testing.T) {
	m := diffModel(t)
	p := newPair(t, m, "package hcp.ext\n\ndeny contains \"stop\" if input.args.stop\n", reference.Ext{})
	base := `"principal": {"id": "alice", "projects": ["p1"]}, "owner": "alice", "project_id": "p1"`
	cases := map[string]struct{ input, message string }{
		"invalid_input":       {`{"pack_id": 1}`, "The request is not permitted for this agent."},
		"unknown_command":     {`{` + base + `, "pack_id": "alpha", "verb_key": "refund"}`, "refund is not permitted for this agent."},
		"pack_unavailable":    {`{` + base + `, "pack_id": "alpha", "verb_key": "read.personal.open", "pack_reachable": false}`, "MCP server 'alpha' is not reachable."},
		"capability_required": {`{` + base + `, "pack_id": "alpha", "stimulus": "seen.brain"}`, "seen.brain is not permitted for this agent."},
		"land_denied":         {`{"principal": {"id": "alice"}, "pack_id": "alpha", "verb_key": "write.brain.open"}`, "write.brain.open is not permitted for this agent."},
		"runtime_denied":      {`{` + base + `, "pack_id": "alpha", "verb_key": "read.personal.open", "args": {"stop": true}}`, "read.personal.open is not permitted for this agent."},
	}
	for code, c := range cases {
		t.Run(code, func(t *testing.T) {
			var in any
			if err := json.Unmarshal([]byte(c.input), &in); err != nil {
				t.Fatal(err)
			}
			res, err := p.rego.Decide(context.Background(), reparse(in))
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision.Doc["code"] != code {
				t.Fatalf("decided %v, want %s", res.Decision.Doc["code"], code)
			}
			g := res.GPARSError
			wantCode, gparsCode := json.Number("-32001"), "AUTHORIZATION_DENIED"
			if code == "pack_unavailable" {
				wantCode, gparsCode = json.Number("-32002"), "SERVER_UNAVAILABLE"
			}
			want := map[string]any{"code": wantCode, "message": c.message, "data": map[string]any{"gpars_code": gparsCode}}
			if !reflect.DeepEqual(normalize(g), normalize(want)) {
				t.Fatalf("gpars_error = %v, want exactly %v", g, want)
			}
			text := jsonText(g)
			for _, secret := range []string{"verb.exec", "pack.connect", "sense.enable", "grants/", "policy.json", "role", "principal", "alice"} {
				if strings.Contains(text, secret) {
					t.Errorf("gpars_error leaks %q: %s", secret, text)
				}
			}
		})
	}
}

// TestNoGPARSErrorWhenNotRefused checks that allowed and confirm_required
// decisions carry no GPARS error.
func TestNoGPARSErrorWhenNotRefused(t *testing.T) {
	m := diffModel(t)
	p := newPair(t, m, "", reference.Ext{})
	gen := newRandomInputs(m, 11)
	seen := map[string]bool{}
	for range 3000 {
		res, err := p.rego.Decide(context.Background(), gen.next())
		if err != nil {
			t.Fatal(err)
		}
		code, _ := res.Decision.Doc["code"].(string)
		seen[code] = true
		refused := code != "allowed" && code != "confirm_required"
		if refused != (res.GPARSError != nil) {
			t.Fatalf("%s decision with gpars_error %v", code, res.GPARSError)
		}
	}
	for _, code := range []string{"allowed", "confirm_required", "invalid_input", "capability_required"} {
		if !seen[code] {
			t.Errorf("the random inputs never reached %s", code)
		}
	}
}

// TestIdentityComesOnlyFromPrincipal checks
// docs/files.md#the-decision-input: agent, args.tenant,
// args.entity and args.workspace never change who the caller is or which
// tenant applies, so never the decision or the grant that gave it. (Extra
// arguments do change which exact allow rules match a call, by design, so
// the inputs here carry none.)
func TestIdentityComesOnlyFromPrincipal(t *testing.T) {
	m := diffModel(t)
	p := newPair(t, m, "", reference.Ext{})
	gen := newRandomInputs(m, 5)
	forged := []any{"acme", "beta", map[string]any{"id": "alice", "roles": []any{"member", "ops"}}, "/w/proj", true}
	ctx := context.Background()
	for i := range scaled(4000) {
		in, ok := gen.next().(map[string]any)
		if !ok {
			continue
		}
		deleteIn(in, "access", "allow")
		before, err := p.rego.Decide(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		changed := reparse(in).(map[string]any)
		changed["agent"] = forged[i%len(forged)]
		if args, ok := changed["args"].(map[string]any); ok {
			args["tenant"], args["entity"], args["workspace"] = forged[i%len(forged)], forged[(i+1)%len(forged)], forged[(i+2)%len(forged)]
		}
		after, err := p.rego.Decide(ctx, reparse(changed))
		if err != nil {
			t.Fatal(err)
		}
		if before.Decision.Doc["code"] != after.Decision.Doc["code"] || before.Decision.Doc["allow"] != after.Decision.Doc["allow"] ||
			jsonText(before.Decision.Doc["source"]) != jsonText(after.Decision.Doc["source"]) {
			t.Fatalf("forged identity fields changed %v to %v for %s", before.Decision.Doc["code"], after.Decision.Doc["code"], jsonText(changed))
		}
	}
}

// TestRuntimeLayerOnlyNarrows checks docs/reliability.md ("No widening")
// on random inputs: under every runtime layer, a call is allowed only if
// it is allowed without the layer, and a confirm_required never becomes
// allowed.
func TestRuntimeLayerOnlyNarrows(t *testing.T) {
	m := diffModel(t)
	plain := newPair(t, m, "", reference.Ext{})
	ctx := context.Background()
	for _, layer := range extLayers {
		t.Run(layer.name, func(t *testing.T) {
			p := newPair(t, m, layer.module, layer.ext)
			gen := newRandomInputs(m, 13)
			narrowed := 0
			for range scaled(2000) {
				in := gen.next()
				with, err := p.rego.Decide(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				without, err := plain.rego.Decide(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				if with.Decision.Doc["allow"] == true && without.Decision.Doc["allow"] != true {
					t.Fatalf("the layer widened %v to allowed for %s", without.Decision.Doc["code"], jsonText(in))
				}
				if with.Decision.Doc["code"] != without.Decision.Doc["code"] {
					narrowed++
					wantCodes := []string{"runtime_denied", "confirm_required"}
					if !slices.Contains(wantCodes, fmt.Sprint(with.Decision.Doc["code"])) {
						t.Fatalf("the layer changed %v into %v", without.Decision.Doc["code"], with.Decision.Doc["code"])
					}
				}
			}
			if fires := layer.ext.Deny != nil || layer.ext.Confirm != nil; fires && narrowed == 0 && !strings.Contains(layer.name, "empty") && !strings.Contains(layer.name, "false") {
				t.Errorf("layer %q never changed a decision: the test would not see a widening", layer.name)
			}
		})
	}
}
