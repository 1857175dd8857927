package matrix

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
)

// seed004v2 is a second version of the seed 004 pack: dispatch no longer
// asks, buildsite.command_check is gone, documents.export is new, role
// auditor is new and role administrator has no grant left.
func seed004v2(t *testing.T) *compile.Model {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "hub", "manifest.json"), `{"id": "hub", "commands": {
		"documents.search": {}, "case-gateway.dispatch": {}, "documents.export": {}}}`)
	writeFile(t, filepath.Join(dir, "hub", "policy.json"), `{"surface_id": "hub", "verbs": {
		"documents.search":      {"operation": "read",  "privacy": {"land": "brain"}},
		"case-gateway.dispatch": {"operation": "write", "privacy": {"land": "personal"}},
		"documents.export":      {"operation": "read",  "privacy": {"land": "brain"}}}}`)
	writeFile(t, filepath.Join(dir, "grants.json"), `{"grants": [
		{"subject": "role:guest",   "pack_id": "hub", "verb_key": "documents.search", "capabilities": ["verb.exec.read"]},
		{"subject": "role:member",  "pack_id": "hub", "capabilities": ["verb.exec.read", "verb.exec.write"]},
		{"subject": "role:auditor", "pack_id": "hub", "verb_key": "documents.export", "capabilities": ["verb.exec.read"]}]}`)
	return load(t, []string{filepath.Join(dir, "hub")}, filepath.Join(dir, "grants.json"))
}

func TestCompare(t *testing.T) {
	d, err := Compare(context.Background(), seed004(t), seed004v2(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	export := RowID{"hub", KindVerb, "documents.export"}
	wantChanges := []Change{
		{"role:member", dispatch, Ask, Allow},
		{"role:member", export, Absent, Allow},
		{"role:member", check, Allow, Absent},
		{"role:auditor", export, Absent, Allow},
		{"role:administrator", search, Allow, Deny},
		{"role:administrator", dispatch, Ask, Deny},
		{"role:administrator", check, Allow, Absent},
	}
	if !reflect.DeepEqual(d.Changes, wantChanges) {
		t.Errorf("changes:\n%v\nwant:\n%v", d.Changes, wantChanges)
	}
	wantSubjects := []string{"role:guest", "role:member", "role:auditor", "role:administrator", "default"}
	if !reflect.DeepEqual(d.Subjects, wantSubjects) {
		t.Errorf("subjects = %q, want %q", d.Subjects, wantSubjects)
	}
	if !reflect.DeepEqual(d.AddedRows, []RowID{export}) || !reflect.DeepEqual(d.RemovedRows, []RowID{check}) {
		t.Errorf("rows added %v, removed %v", d.AddedRows, d.RemovedRows)
	}
	if !reflect.DeepEqual(d.AddedSubjects, []string{"role:auditor"}) || !reflect.DeepEqual(d.RemovedSubjects, []string{"role:administrator"}) {
		t.Errorf("subjects added %v, removed %v", d.AddedSubjects, d.RemovedSubjects)
	}
	var b bytes.Buffer
	if err := d.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want := "**hcp-rego matrix diff**, mode `ask`: 7 cells changed\n\n" +
		"| subject | pack | kind | key | change |\n" +
		"| --- | --- | --- | --- | --- |\n" +
		"| `role:member` | `hub` | verb | `case-gateway.dispatch` | ask → allow |\n" +
		"| `role:member` | `hub` | verb | `documents.export` | — → allow |\n" +
		"| `role:member` | `hub` | verb | `buildsite.command_check` | allow → — |\n" +
		"| `role:auditor` | `hub` | verb | `documents.export` | — → allow |\n" +
		"| `role:administrator` | `hub` | verb | `documents.search` | allow → deny |\n" +
		"| `role:administrator` | `hub` | verb | `case-gateway.dispatch` | ask → deny |\n" +
		"| `role:administrator` | `hub` | verb | `buildsite.command_check` | allow → — |\n" +
		"\n" +
		"Rows added: `hub` verb `documents.export`.\n" +
		"Rows removed: `hub` verb `buildsite.command_check`.\n" +
		"Subjects added: `role:auditor`.\n" +
		"Subjects removed: `role:administrator`.\n"
	if b.String() != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestCompareUnchanged(t *testing.T) {
	d, err := Compare(context.Background(), seed004(t), seed004(t), Options{Mode: ModeRun})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want := "**hcp-rego matrix diff**, mode `run`: no changes; every subject gets the same on every command and trigger.\n"
	if b.String() != want {
		t.Errorf("markdown = %q, want %q", b.String(), want)
	}
}
