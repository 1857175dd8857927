package reference

import (
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
)

// TestExamplePacks decides calls against the repository's example packs
// and grant sets, with sources as the compiler was given them.
func TestExamplePacks(t *testing.T) {
	m, err := compile.Load(
		[]string{"../../testdata/packs/ledger", "../../testdata/packs/mail", "../../testdata/packs/workspace"},
		[]string{"../../testdata/grants/acme.json", "../../testdata/grants/defaults.json"}).Check()
	if err != nil {
		t.Fatal(err)
	}
	e := New(m.Packs(), m.Grants())
	tests := []struct {
		name, input, want string
	}{{
		name: "alice's transfer asks first",
		input: `{ "principal": { "id": "alice", "tenant": "acme", "roles": ["member"], "projects": ["p-42"] },
			"pack_id": "ledger", "verb_key": "transfer", "args": { "amount": "2.80", "payee": "demo-transit" },
			"confirm": false, "apply": false, "access": { "mode": "ask", "allow": [] }, "project_id": "p-42",
			"owner": "alice", "workspace": { "root": "/home/alice/proj", "paths": ["/home/alice/proj/out.txt"] },
			"pack_reachable": true }`,
		want: `{ "allow": false, "code": "confirm_required", "error": "confirm required",
			"pack_id": "ledger", "verb_key": "transfer",
			"operation": "write", "land": "personal", "capability": "verb.exec.write", "confirm": true,
			"source": { "row": "../../testdata/packs/ledger/policy.json:5", "grant": "../../testdata/grants/acme.json:7" },
			"preview": { "command": "transfer", "args": { "amount": "2.80", "payee": "demo-transit" },
			             "cli": "ledger transfer 2.80 --to demo-transit --confirm" },
			"hint": "Nothing ran. Re-run with confirm=true only if the user has approved this exact action with these values.",
			"reasons": [] }`,
	}, {
		name:  "a principal no grant names reads mail by default",
		input: `{ "principal": { "id": "eve" }, "pack_id": "mail", "verb_key": "mail.list", "owner": "eve" }`,
		want: `{ "allow": true, "code": "allowed", "pack_id": "mail", "verb_key": "mail.list",
			"operation": "read", "land": "personal", "capability": "verb.exec.read", "confirm": false,
			"source": { "row": "../../testdata/packs/mail/policy.json:5", "grant": "../../testdata/grants/defaults.json:4" },
			"reasons": [] }`,
	}, {
		name:  "a member gets no default",
		input: `{ "principal": { "id": "bob", "roles": ["member"] }, "pack_id": "ledger", "verb_key": "transfer", "owner": "bob" }`,
		want: `{ "allow": false, "code": "capability_required", "error": "capability required",
			"pack_id": "ledger", "verb_key": "transfer",
			"operation": "write", "land": "personal", "capability": "verb.exec.write", "confirm": true,
			"source": { "row": "../../testdata/packs/ledger/policy.json:5" }, "reasons": [] }`,
	}, {
		name: "a dev's purge is always asked, even in mode run",
		input: `{ "principal": { "id": "dana", "tenant": "acme", "roles": ["dev"] }, "pack_id": "workspace",
			"verb_key": "files.purge", "args": { "path": "/w/tmp" }, "access": { "mode": "run" },
			"workspace": { "root": "/w", "paths": ["/w/tmp"] } }`,
		want: `{ "allow": false, "code": "confirm_required", "error": "confirm required",
			"pack_id": "workspace", "verb_key": "files.purge",
			"operation": "write", "land": "local", "capability": "verb.exec.write", "confirm": "always",
			"source": { "row": "../../testdata/packs/workspace/policy.json:7", "grant": "../../testdata/grants/acme.json:10" },
			"preview": { "command": "files.purge", "args": { "path": "/w/tmp" }, "cli": "ws purge /w/tmp --apply" },
			"hint": "Nothing ran. Re-run with confirm=true only if the user has approved this exact action with these values.",
			"reasons": [] }`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertJSON(t, e.Decide(decode(t, tt.input), Ext{}), tt.want)
		})
	}
}
