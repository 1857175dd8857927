package integration

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// callExt is a runtime bundle whose rules read what a call carries besides
// its key: a transfer needs a change ticket in args, approved or
// applied calls are refused, allow rules put a gate on, and a member the
// decision input does not name blocks an agent.
var callExt = map[string]string{
	".manifest": `{"revision": "ext-call", "roots": ["hcp/ext"], "rego_version": 1}`,
	"hcp/ext/call.rego": `package hcp.ext

deny contains "no change ticket" if {
	input.verb_key == "transfer"
	not input.args.ticket
}

deny contains "approved" if input.confirm

deny contains "applied" if input.apply

deny contains "agent blocked" if input.agent == "blocked-bot"

confirm contains "allow rules given" if count(input.access.allow) > 0
`,
}

// TestSidecarListingSeesWhatACallSees asks a real OPA, beside callExt, for
// listings whose input carries args with a ticket, confirm, apply, allow
// rules and an agent, and for the decision of each key as the listing
// defines it (args {}, none of the others): every entry is that decision,
// over REST and in the embedded evaluator alike.
func TestSidecarListingSeesWhatACallSees(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range callExt {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tarball := buildFile(t, exampleModel(t, acme, defaults), "", nil)
	s := startOPA(t, "--bundle", tarball, "--bundle", dir)
	s.waitHealthy(t)
	b, err := bundles.Read(tarball, nil, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ext, err := hcprego.ReadExt([]string{filepath.Join(dir, "hcp", "ext")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := hcprego.New(context.Background(), b, ext...)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]int{}
	for _, agent := range []string{"deploy-bot", "blocked-bot"} {
		in := decode(t, `{"principal": {"id": "alice", "tenant": "acme", "roles": ["member"]}, "pack_id": "ledger", "owner": "alice",
			"args": {"ticket": "T-1", "amount": "2.80"}, "confirm": true, "apply": true,
			"access": {"mode": "ask", "allow": [{"pack_id": "ledger", "verb_key": "transfer"}]}}`).(map[string]any)
		in["agent"] = agent
		listing := normal(s.query(t, "hcp/authz/permissions", in)).(map[string]any)
		embedded, err := ev.Permissions(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(listing, normal(embedded.Doc)) {
			t.Errorf("OPA lists %s\nthe embedded evaluator %s", text(listing), text(embedded.Doc))
		}
		for field, kind := range map[string]string{"verbs": "verb_key", "stimuli": "stimulus"} {
			entries, _ := listing[field].(map[string]any)
			for key, e := range entries {
				call := maps.Clone(in)
				for _, f := range []string{"confirm", "apply"} {
					delete(call, f)
				}
				call[kind] = key
				call["args"] = map[string]any{}
				call["access"] = map[string]any{"mode": "ask"}
				d := normal(s.query(t, "hcp/authz/decision", call)).(map[string]any)
				entry := e.(map[string]any)
				for _, f := range []string{"code", "capability", "source", "reasons"} {
					if !reflect.DeepEqual(entry[f], d[f]) {
						t.Errorf("agent %s, %s %s: listed %s %v, OPA decides %v", agent, kind, key, f, entry[f], d[f])
					}
				}
				codes[entry["code"].(string)]++
			}
		}
	}
	for _, code := range []string{"runtime_denied", "allowed"} {
		if codes[code] == 0 {
			t.Errorf("no entry is %s: %v", code, codes)
		}
	}
}
