package reference

import "testing"

// TestLand decides a call of each land with its fact present, absent and
// wrong (docs/decisions.md item 5).
func TestLand(t *testing.T) {
	e := ledgerFixture([2]string{"member.json", memberGrants}).evaluator(t)
	const who = `"principal": { "id": "bob", "roles": ["member"], "projects": ["p-1", "p-2"] }, "pack_id": "ledger"`
	tests := []struct {
		name  string
		call  string // members after principal and pack_id
		allow bool
	}{
		{"personal: owner is the principal", `"verb_key": "balance", "owner": "bob"`, true},
		{"personal: no owner", `"verb_key": "balance"`, false},
		{"personal: someone else's", `"verb_key": "balance", "owner": "alice"`, false},
		{"personal: empty owner", `"verb_key": "balance", "owner": ""`, false},
		{"personal: owner in args does not count", `"verb_key": "balance", "args": { "owner": "bob" }`, false},
		{"personal trigger", `"stimulus": "payment_received", "owner": "bob"`, true},
		{"personal trigger: someone else's", `"stimulus": "payment_received", "owner": "alice"`, false},
		{"brain: a project of the principal", `"verb_key": "report", "project_id": "p-2"`, true},
		{"brain: no project", `"verb_key": "report"`, false},
		{"brain: another project", `"verb_key": "report", "project_id": "p-3"`, false},
		{"brain: empty project", `"verb_key": "report", "project_id": ""`, false},
		{"brain: owner is not enough", `"verb_key": "report", "owner": "bob"`, false},
		{"local: root alone", `"verb_key": "export", "workspace": { "root": "/home/a/proj" }`, true},
		{"local: no workspace", `"verb_key": "export"`, false},
		{"local: no root", `"verb_key": "export", "workspace": { "paths": ["/home/a/proj/x"] }`, false},
		{"local: empty paths", `"verb_key": "export", "workspace": { "root": "/home/a/proj", "paths": [] }`, true},
		{"local: paths below", `"verb_key": "export", "workspace": { "root": "/home/a/proj", "paths": ["/home/a/proj", "/home/a/proj/out.txt", "/home/a/proj/d/e"] }`, true},
		{"local: a sibling with the root as prefix", `"verb_key": "export", "workspace": { "root": "/home/a/proj", "paths": ["/home/a/proj2"] }`, false},
		{"local: one path outside", `"verb_key": "export", "workspace": { "root": "/home/a/proj", "paths": ["/home/a/proj/x", "/etc/passwd"] }`, false},
		{"local: dot-dot escape", `"verb_key": "export", "workspace": { "root": "/home/a/proj", "paths": ["/home/a/proj/../b"] }`, false},
		{"local: relative path", `"verb_key": "export", "workspace": { "root": "/home/a/proj", "paths": ["out.txt"] }`, false},
		{"local: relative root", `"verb_key": "export", "workspace": { "root": "home/a/proj" }`, false},
		{"local: root with trailing slash", `"verb_key": "export", "workspace": { "root": "/home/a/proj/" }`, false},
		{"local: root /", `"verb_key": "export", "workspace": { "root": "/", "paths": ["/etc/passwd", "/"] }`, true},
		{"local: root / and a dirty path", `"verb_key": "export", "workspace": { "root": "/", "paths": ["//etc"] }`, false},
		{"local trigger", `"stimulus": "file_changed", "workspace": { "root": "/w", "paths": ["/w/a"] }`, true},
		{"local trigger outside", `"stimulus": "file_changed", "workspace": { "root": "/w", "paths": ["/v/a"] }`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := landDenied
			if tt.allow {
				want = allowed
			}
			if got := decideCode(t, e, `{ `+who+`, `+tt.call+` }`, Ext{}); got != want {
				t.Errorf("code = %q, want %q", got, want)
			}
		})
	}
}

// TestCleanPath holds the path rules of docs/decisions.md item 5.
func TestCleanPath(t *testing.T) {
	tests := []struct {
		path  string
		clean bool
	}{
		{"/", true},
		{"/a", true},
		{"/home/a/proj", true},
		{"/a/.b/c..", true},
		{"/a b/ü", true},
		{"", false},
		{"a", false},
		{"./a", false},
		{"//", false},
		{"/a/", false},
		{"/a//b", false},
		{"/a/./b", false},
		{"/a/../b", false},
		{"/.", false},
		{"/..", false},
		{"/a/.", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := isClean(tt.path); got != tt.clean {
				t.Errorf("isClean(%q) = %v, want %v", tt.path, got, tt.clean)
			}
		})
	}
}

// TestBelow holds the "root or below" rule of docs/decisions.md item 5.
func TestBelow(t *testing.T) {
	tests := []struct {
		path, root string
		below      bool
	}{
		{"/home/a/proj", "/home/a/proj", true},
		{"/home/a/proj/x", "/home/a/proj", true},
		{"/home/a/proj2", "/home/a/proj", false},
		{"/home/a", "/home/a/proj", false},
		{"/home/a/pro", "/home/a/proj", false},
		{"/anything", "/", true},
		{"/", "/", true},
		{"/", "/a", false},
	}
	for _, tt := range tests {
		t.Run(tt.path+" in "+tt.root, func(t *testing.T) {
			if got := isBelow(tt.path, tt.root); got != tt.below {
				t.Errorf("isBelow(%q, %q) = %v, want %v", tt.path, tt.root, got, tt.below)
			}
		})
	}
}
