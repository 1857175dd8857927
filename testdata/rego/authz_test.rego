# Rego unit tests over the compiled modules and grant tables of every pack
# and grant file that `hcp-rego test testdata/` finds. OPA's tester runs
# them; their results count in the same totals as the decision cases.
package hcp.authz_test

import data.hcp.authz

alice := {"id": "alice", "tenant": "acme", "roles": ["member"]}

transfer := {
	"principal": alice,
	"pack_id": "ledger",
	"verb_key": "transfer",
	"owner": "alice",
	"args": {"amount": "2.80", "payee": "demo-transit"},
}

test_transfer_asks_first if {
	d := authz.decision with input as transfer
	d.code == "confirm_required"
	d.preview.cli == "ledger transfer 2.80 --to demo-transit --confirm"
	not authz.gpars_error with input as transfer
}

test_confirmed_transfer_is_allowed if {
	authz.allow with input as object.union(transfer, {"confirm": true})
}

test_runtime_deny_cannot_be_lifted if {
	d := authz.decision with input as object.union(transfer, {"confirm": true})
		with data.hcp.ext.deny as {"frozen"}
	d.code == "runtime_denied"
	d.reasons == ["frozen"]
}

test_refusal_names_nothing_of_the_policy if {
	e := authz.gpars_error with input as object.union(transfer, {"owner": "bob"})
	e == {
		"code": -32001,
		"message": "transfer is not permitted for this agent.",
		"data": {"gpars_code": "AUTHORIZATION_DENIED"},
	}
}

# Each row names where it stands: its policy.json and line.
test_every_row_names_its_line if {
	every pack in data.hcp_packs {
		every row in pack.verbs {
			[file, line] := split(row.source, ":")
			endswith(file, "policy.json")
			to_number(line) > 0
		}
	}
}
