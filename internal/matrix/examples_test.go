package matrix

import (
	"context"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
)

// The rows of the example packs in testdata/packs, in matrix order.
var (
	transfer   = RowID{"ledger", KindVerb, "transfer"}
	balance    = RowID{"ledger", KindVerb, "balance"}
	connect    = RowID{"ledger", KindVerb, "connect"}
	payment    = RowID{"ledger", KindStimulus, "payment_received"}
	mailList   = RowID{"mail", KindVerb, "mail.list"}
	mailGet    = RowID{"mail", KindVerb, "mail.get"}
	mailSend   = RowID{"mail", KindVerb, "mail.send"}
	mailConn   = RowID{"mail", KindVerb, "mail.connect"}
	notes      = RowID{"mail", KindVerb, "notes.create"}
	newItem    = RowID{"mail", KindStimulus, "new_item"}
	degraded   = RowID{"mail", KindStimulus, "binding.degraded"}
	filesRead  = RowID{"workspace", KindVerb, "files.read"}
	filesWrite = RowID{"workspace", KindVerb, "files.write"}
	filesPurge = RowID{"workspace", KindVerb, "files.purge"}
	publish    = RowID{"workspace", KindVerb, "release.publish"}
	changed    = RowID{"workspace", KindStimulus, "file_changed"}

	exampleRows = []RowID{
		transfer, balance, connect, payment,
		mailList, mailGet, mailSend, mailConn, notes, newItem, degraded,
		filesRead, filesWrite, filesPurge, publish, changed,
	}
	// Subjects in the order testdata/grants/acme.json first names them.
	exampleSubjects = []string{"role:member", "role:admin", "principal:alice", "role:dev", "role:lead", "default"}
)

// exampleMatrix is the matrix of the example packs in mode ask with no
// tenant, worked out by hand from docs/decisions.md. role:admin's only
// grant is for tenant acme, so without a tenant no named grant applies to
// it and the default grants do; role:dev's file_changed grant has no
// tenant, so it is named and gets no default grant.
func exampleMatrix() table {
	const A, Q, D = Allow, Ask, Deny
	return table{
		//           member admin alice dev lead default
		transfer:   {D, D, Q, D, D, D},
		balance:    {A, A, D, D, D, A},
		connect:    {D, D, D, D, D, D},
		payment:    {A, D, D, D, D, D},
		mailList:   {A, A, D, D, D, A},
		mailGet:    {A, A, D, D, D, A},
		mailSend:   {Q, D, D, D, D, D},
		mailConn:   {D, D, D, D, D, D},
		notes:      {A, D, D, D, D, D},
		newItem:    {A, D, D, D, D, D},
		degraded:   {D, D, D, D, D, D},
		filesRead:  {D, D, D, D, D, D},
		filesWrite: {D, D, D, D, D, D},
		filesPurge: {D, D, D, D, D, D},
		publish:    {D, D, D, D, Q, D},
		changed:    {D, D, D, A, D, D},
	}
}

func TestExamples(t *testing.T) {
	mx := compute(t, examples(t), Options{})
	checkMatrix(t, mx, exampleSubjects, exampleRows, exampleMatrix())
}

// TestExamplesTenant: for tenant acme, role:admin's grant applies (so its
// default grants stop) and role:dev gets the workspace, where
// confirm: "always" asks.
func TestExamplesTenant(t *testing.T) {
	want := exampleMatrix()
	const A, Q, D = Allow, Ask, Deny
	for _, id := range exampleRows {
		want[id][1] = D
	}
	want[mailConn][1] = A
	want[filesRead][3], want[filesWrite][3], want[filesPurge][3], want[publish][3] = A, A, Q, Q
	mx := compute(t, examples(t), Options{Tenant: "acme"})
	checkMatrix(t, mx, exampleSubjects, exampleRows, want)
	other := compute(t, examples(t), Options{Tenant: "globex"})
	checkMatrix(t, other, exampleSubjects, exampleRows, exampleMatrix())
}

// TestExamplesRun: mode run passes confirm: true but never "always".
func TestExamplesRun(t *testing.T) {
	want := exampleMatrix()
	want[transfer][2] = Allow
	want[mailSend][0] = Allow
	mx := compute(t, examples(t), Options{Mode: ModeRun})
	if mx.Mode != ModeRun {
		t.Errorf("mode = %q, want run", mx.Mode)
	}
	checkMatrix(t, mx, exampleSubjects, exampleRows, want)
}

func TestTenantOnly(t *testing.T) {
	m := examples(t)
	got := TenantOnly(m, "")
	if len(got) != 1 || len(got["acme"]) != 2 || got["acme"][0].N != 3 || got["acme"][1].N != 7 {
		t.Fatalf("TenantOnly(\"\") = %v, want acme: grants 3 and 7", got)
	}
	if got := TenantOnly(m, "acme"); len(got) != 0 {
		t.Fatalf("TenantOnly(acme) = %v, want none", got)
	}
}

// BenchmarkExamples computes the whole matrix of the example packs (16
// rows, 6 subjects): bundle, evaluator and 96 decisions.
func BenchmarkExamples(b *testing.B) {
	m, err := compile.Checked([]string{"../../testdata/packs"}, []string{"../../testdata/grants/acme.json", "../../testdata/grants/defaults.json"})
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		if _, err := Compute(context.Background(), m, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
