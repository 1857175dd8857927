package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/reference"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// call is one input of the corpus with what its decision must say. The
// ext rules of testdata/ext fire on input.runtime.deny and
// input.runtime.confirm.
type call struct {
	name    string
	input   string
	code    string
	reasons []string // the decision's reasons, when the case is about them
	cli     string   // preview.cli, when the case is about it
}

// corpus covers every decision code, and every way docs/decisions.md
// (item 6) lets the runtime layer act (and the ways it may not).
var corpus = []call{
	{name: "empty principal id", input: `{"principal": {"id": ""}, "pack_id": "ledger", "verb_key": "balance"}`, code: "invalid_input"},
	{name: "not an object", input: `42`, code: "invalid_input"},
	{name: "verb_key and stimulus", input: `{"principal": {"id": "bob"}, "pack_id": "mail", "verb_key": "mail.list", "stimulus": "new_item"}`, code: "invalid_input"},
	{name: "unknown mode", input: `{"principal": {"id": "bob"}, "pack_id": "mail", "verb_key": "mail.list", "access": {"mode": "yolo"}}`, code: "invalid_input"},
	{name: "unknown verb", input: `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "ledger", "verb_key": "refund"}`, code: "unknown_command"},
	{name: "unknown pack", input: `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "crm", "stimulus": "new_item"}`, code: "unknown_command"},
	{name: "pack unreachable", input: `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "verb_key": "mail.list", "owner": "bob", "pack_reachable": false}`, code: "pack_unavailable"},
	{name: "write not granted", input: `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "ledger", "verb_key": "transfer", "owner": "bob"}`, code: "capability_required"},
	{name: "connect needs pack.connect", input: `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "verb_key": "mail.connect", "owner": "bob"}`, code: "capability_required"},
	{name: "tenant-bound grant, other tenant", input: `{"principal": {"id": "dan", "tenant": "globex", "roles": ["admin"]}, "pack_id": "mail", "verb_key": "mail.connect", "owner": "dan"}`, code: "capability_required"},
	{name: "runtime deny cannot reach a capability deny", input: `{"principal": {"id": "bob"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "bob", "runtime": {"deny": ["frozen"]}}`, code: "capability_required", reasons: []string{}},
	{name: "personal land, other owner", input: `{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "bob", "args": {"amount": "2.80", "payee": "demo-transit"}}`, code: "land_denied"},
	{name: "brain land, no project", input: `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "verb_key": "notes.create"}`, code: "land_denied"},
	{name: "local land, sibling path", input: `{"principal": {"id": "eve", "tenant": "acme", "roles": ["dev"]}, "pack_id": "workspace", "verb_key": "files.read", "workspace": {"root": "/home/eve/proj", "paths": ["/home/eve/proj2/x"]}}`, code: "land_denied"},
	{name: "runtime deny", input: `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "verb_key": "mail.list", "owner": "bob", "runtime": {"deny": ["maintenance window", "account frozen", "maintenance window"]}}`, code: "runtime_denied", reasons: []string{"account frozen", "maintenance window"}},
	{name: "runtime deny before any gate", input: `{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice", "confirm": true, "args": {"amount": "1", "payee": "x"}, "runtime": {"deny": ["payee blocked"], "confirm": ["new payee"]}}`, code: "runtime_denied", reasons: []string{"payee blocked"}},
	{name: "row gate", input: `{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice", "args": {"amount": "2.80", "payee": "demo-transit"}}`, code: "confirm_required", reasons: []string{}, cli: "ledger transfer 2.80 --to demo-transit --confirm"},
	{name: "runtime reasons that are not strings", input: `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "verb_key": "mail.list", "owner": "bob", "runtime": {"deny": [{"z": 1, "a": [1.50]}, 2.0, "b", "<&>"]}}`, code: "runtime_denied"},
	{name: "preview keeps a number's text", input: `{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice", "args": {"amount": 1e3, "payee": "demo-transit"}}`, code: "confirm_required", cli: "ledger transfer 1e3 --to demo-transit --confirm"},
	{name: "preview quotes", input: `{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice", "args": {"amount": "it's", "payee": {"b": 1, "a": "<&>"}}}`, code: "confirm_required", cli: `ledger transfer 'it'\''s' --to '{"a":"\u003c\u0026\u003e","b":1}' --confirm`},
	{name: "runtime gate on an ungated read", input: `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "verb_key": "mail.list", "owner": "bob", "args": {"folder": "inbox"}, "runtime": {"confirm": ["unusual hour"]}}`, code: "confirm_required", reasons: []string{"unusual hour"}, cli: "mail list --folder inbox --confirm"},
	{name: "runtime gate passed in mode run", input: `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "verb_key": "mail.list", "owner": "bob", "access": {"mode": "run"}, "runtime": {"confirm": ["unusual hour"]}}`, code: "allowed", reasons: []string{}},
	{name: "runtime gate passed by confirm", input: `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "verb_key": "mail.list", "owner": "bob", "confirm": true, "runtime": {"confirm": ["unusual hour"]}}`, code: "allowed"},
	{name: "runtime gate never lowers always", input: `{"principal": {"id": "eve", "tenant": "acme", "roles": ["dev"]}, "pack_id": "workspace", "verb_key": "files.purge", "access": {"mode": "run"}, "args": {"path": "/home/eve/proj/tmp"}, "workspace": {"root": "/home/eve/proj", "paths": ["/home/eve/proj/tmp"]}, "runtime": {"confirm": ["bulk delete"]}}`, code: "confirm_required", reasons: []string{}, cli: "ws purge /home/eve/proj/tmp --apply"},
	{name: "allowed read", input: `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "ledger", "verb_key": "balance", "owner": "bob"}`, code: "allowed", reasons: []string{}},
	{name: "allowed by a default grant", input: `{"principal": {"id": "carol"}, "pack_id": "mail", "verb_key": "mail.get", "owner": "carol", "args": {"id": "m-1"}}`, code: "allowed"},
	{name: "allowed by an allow rule", input: `{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice", "args": {"amount": "2.80", "payee": "demo-transit"}, "access": {"mode": "ask", "allow": [{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "demo-transit"}, "limits": {"amount": {"max": 5}}}]}}`, code: "allowed"},
	{name: "limit compared exactly, not as float64", input: `{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice", "args": {"amount": "12.500000000000000010", "payee": "demo-transit"}, "access": {"allow": [{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "demo-transit"}, "limits": {"amount": {"max": 12.50}}}]}}`, code: "confirm_required", cli: "ledger transfer 12.500000000000000010 --to demo-transit --confirm"},
	{name: "62.6 over a long max", input: `{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice", "args": {"amount": "1000000000000000063.10", "payee": "demo-transit"}, "access": {"allow": [{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "demo-transit"}, "limits": {"amount": {"max": 1000000000000000000.50}}}]}}`, code: "confirm_required"},
	{name: "65-character number fails a limit", input: `{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice", "args": {"amount": 1.0000000000000000000000000000000000000000000000000000000000000000, "payee": "demo-transit"}, "access": {"allow": [{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "demo-transit"}, "limits": {"amount": {"max": 5}}}]}}`, code: "confirm_required"},
	{name: "preview keeps apart numbers OPA calls equal", input: `{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice", "args": {"amount": 12.500000000000000010, "payee": 12.50}}`, code: "confirm_required", cli: "ledger transfer 12.500000000000000010 --to 12.50 --confirm"},
	{name: "allowed within a limit written with an exponent", input: `{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice", "args": {"amount": 1.25e1, "payee": "demo-transit"}, "access": {"allow": [{"pack_id": "ledger", "verb_key": "transfer", "args": {"payee": "demo-transit"}, "limits": {"amount": {"min": "-0", "max": "12.50"}}}]}}`, code: "allowed"},
	{name: "allowed by a pinned number of another spelling", input: `{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice", "args": {"amount": 1e2, "payee": "demo-transit"}, "access": {"allow": [{"pack_id": "ledger", "verb_key": "transfer", "args": {"amount": 100.0, "payee": "demo-transit"}}]}}`, code: "allowed"},
	{name: "allowed with confirm", input: `{"principal": {"id": "alice"}, "pack_id": "ledger", "verb_key": "transfer", "owner": "alice", "confirm": true, "args": {"amount": 2.8, "payee": "demo-transit"}}`, code: "allowed"},
	{name: "allowed trigger", input: `{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "stimulus": "new_item", "owner": "bob"}`, code: "allowed"},
	{name: "allowed connect, tenant grant", input: `{"principal": {"id": "ann", "tenant": "acme", "roles": ["admin"]}, "pack_id": "mail", "verb_key": "mail.connect", "owner": "ann"}`, code: "allowed"},
	{name: "allowed local dry run", input: `{"principal": {"id": "eve", "tenant": "acme", "roles": ["dev"]}, "pack_id": "workspace", "verb_key": "files.write", "dry_run": true, "workspace": {"root": "/home/eve/proj", "paths": ["/home/eve/proj/out.txt"]}}`, code: "allowed"},
}

// decode reads JSON as the reference wants it: numbers as json.Number.
func decode(t *testing.T, text string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return v
}

// normal is v after a JSON round trip, so that three sources compare.
func normal(v any) any {
	data, _ := json.Marshal(v)
	var out any
	json.Unmarshal(data, &out)
	return out
}

func text(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// extFor is the runtime layer of testdata/ext for input, as the Go
// reference takes it: the values of data.hcp.ext.deny and confirm.
func extFor(input any) reference.Ext {
	doc, _ := input.(map[string]any)
	runtime, _ := doc["runtime"].(map[string]any)
	set := func(v any) any {
		if list, ok := v.([]any); ok {
			return list
		}
		return []any{}
	}
	return reference.Ext{Deny: set(runtime["deny"]), Confirm: set(runtime["confirm"])}
}

// deciders are the two evaluators the OPA server must agree with.
type deciders struct {
	embedded  *hcprego.Evaluator
	reference *reference.Evaluator
}

// newDeciders prepares the embedded evaluator on the bundle read back from
// tarball, with the ext rules, and the reference on the model.
func newDeciders(t *testing.T, tarball string) deciders {
	t.Helper()
	b, err := bundles.Read(tarball, nil, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ext, err := os.ReadFile(extDir + "/hcp/ext/ext.rego")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := hcprego.New(context.Background(), b, hcprego.WithModule("hcp/ext/ext.rego", string(ext)))
	if err != nil {
		t.Fatal(err)
	}
	m := exampleModel(t, acme, defaults)
	return deciders{embedded: ev, reference: reference.New(m.Packs(), m.Grants())}
}

// checkCorpus asks s for every call of the corpus and compares its answer
// with the embedded evaluator's and the reference's, and with the case.
func checkCorpus(t *testing.T, s *server, d deciders) { checkCorpusAs(t, s, d, nil) }

// checkCorpusAs is checkCorpus where the library s runs decides as then
// says the reference's decision reads (nil: as the reference decides).
func checkCorpusAs(t *testing.T, s *server, d deciders, then func(map[string]any)) {
	for _, c := range corpus {
		input := decode(t, c.input)
		res, err := d.embedded.Decide(context.Background(), input)
		if err != nil {
			t.Fatal(err)
		}
		ref := d.reference.Decide(input, extFor(input))
		if then != nil {
			then(ref)
		}
		decisions := map[string]any{
			"OPA":       normal(s.query(t, "hcp/authz/decision", input)),
			"embedded":  normal(res.Decision.Doc),
			"reference": normal(ref),
		}
		gpars := map[string]any{
			"OPA":       normal(s.query(t, "hcp/authz/gpars_error", input)),
			"embedded":  normal(res.GPARSError),
			"reference": normal(reference.GPARSError(ref)),
		}
		for _, who := range []string{"embedded", "reference"} {
			if !reflect.DeepEqual(decisions["OPA"], decisions[who]) {
				t.Errorf("%s: decisions differ\n      OPA: %s\n%9s: %s", c.name, text(decisions["OPA"]), who, text(decisions[who]))
			}
			if !reflect.DeepEqual(gpars["OPA"], gpars[who]) {
				t.Errorf("%s: gpars_error differ\n      OPA: %s\n%9s: %s", c.name, text(gpars["OPA"]), who, text(gpars[who]))
			}
		}
		c.check(t, decisions["OPA"], gpars["OPA"])
	}
}

// check holds OPA's answer to what the case says.
func (c call) check(t *testing.T, decision, gpars any) {
	t.Helper()
	doc, _ := decision.(map[string]any)
	if doc["code"] != c.code || doc["allow"] != (c.code == "allowed") {
		t.Errorf("%s: code %v allow %v, want %s", c.name, doc["code"], doc["allow"], c.code)
	}
	if c.reasons != nil && !reflect.DeepEqual(doc["reasons"], normal(c.reasons)) {
		t.Errorf("%s: reasons %s, want %q", c.name, text(doc["reasons"]), c.reasons)
	}
	preview, _ := doc["preview"].(map[string]any)
	if c.cli != "" && preview["cli"] != c.cli {
		t.Errorf("%s: preview.cli %v, want %q", c.name, preview["cli"], c.cli)
	}
	wantGPARS := c.code != "allowed" && c.code != "confirm_required"
	if (gpars != nil) != wantGPARS {
		t.Errorf("%s: gpars_error %s", c.name, text(gpars))
	}
}

// TestSidecarAgrees loads our bundle, as a .tar.gz and as a compiled
// folder, beside the runtime bundle testdata/ext in `opa run --server`:
// the roots do not conflict, and over the corpus OPA's REST answers equal
// the embedded evaluator's and the Go reference's.
func TestSidecarAgrees(t *testing.T) {
	t.Parallel()
	m := exampleModel(t, acme, defaults)
	tarball := buildFile(t, m, "", nil)
	b, err := compile.Compile(m, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() + "/hcp"
	if err := bundles.WriteDir(dir, b); err != nil {
		t.Fatal(err)
	}
	d := newDeciders(t, tarball)
	for name, path := range map[string]string{"tarball": tarball, "compiled folder": dir} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startOPA(t, "--bundle", path, "--bundle", extDir)
			s.waitHealthy(t)
			checkCorpus(t, s, d)
		})
	}
}
