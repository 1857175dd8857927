package rego_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/compile"
)

// principals are the grant shapes a caller can match: direct grants, roles
// with and without a tenant, a tenant that matches or not, a principal
// named only in another pack (default grants off), and one nobody names.
var principals = []map[string]any{
	{"id": "alice"},
	{"id": "alice", "tenant": "acme"},
	{"id": "bob", "tenant": "beta"},
	{"id": "bob"},
	{"id": "m1", "roles": []any{"member"}},
	{"id": "m2", "tenant": "acme", "roles": []any{"member"}},
	{"id": "m3", "tenant": "other", "roles": []any{"member", "ops"}},
	{"id": "w1", "roles": []any{"watch"}},
	{"id": "w2", "tenant": "acme", "roles": []any{"watch", "nobody"}},
	{"id": "carol"},
	{"id": "dave", "roles": []any{"nobody"}},
	{"id": "erin", "tenant": "acme"},
}

// modes are the access modes: absent, ask and run.
var modes = []any{nil, "ask", "run"}

// approvals are confirm/apply: neither, confirm: true, apply: true.
var approvals = []map[string]any{{}, {"confirm": true}, {"apply": true}, {"confirm": false, "apply": false}}

// allowShapes returns the allow-rule shapes for a call: none, an exact
// match, a pinned argument that differs, an argument the rule does not
// name, limits that hold and that fail, a numeric string within limits,
// numeric strings with leading zeros and beyond float64, a rule for
// another verb, and malformed rules.
func allowShapes(pack, key string) [][]any {
	rule := func(fields map[string]any) map[string]any {
		r := map[string]any{"pack_id": pack, "verb_key": key}
		for k, v := range fields {
			r[k] = v
		}
		return r
	}
	return [][]any{
		nil,
		{rule(map[string]any{"args": map[string]any{"amount": json.Number("2.80"), "payee": "demo"}})},
		{rule(map[string]any{"args": map[string]any{"amount": json.Number("3"), "payee": "demo"}})},
		{rule(map[string]any{"args": map[string]any{"payee": "demo"}})},
		{rule(map[string]any{"args": map[string]any{"payee": "demo"}, "limits": map[string]any{"amount": map[string]any{"min": json.Number("1"), "max": "5"}}})},
		{rule(map[string]any{"args": map[string]any{"payee": "demo"}, "limits": map[string]any{"amount": map[string]any{"max": json.Number("2.5")}}})},
		{rule(map[string]any{"args": map[string]any{"payee": "demo"}, "limits": map[string]any{"amount": map[string]any{"min": "2.80", "max": "2.80"}}}), map[string]any{"pack_id": pack}},
		{map[string]any{"pack_id": pack, "verb_key": "other"}, rule(map[string]any{"args": "demo"})},
		{rule(map[string]any{"args": map[string]any{"payee": "demo"}, "limits": map[string]any{"amount": map[string]any{"min": "0002", "max": "1" + strings.Repeat("0", 400)}}})},
		{rule(map[string]any{"args": map[string]any{"payee": "demo"}, "limits": map[string]any{"amount": map[string]any{"max": true}}})},
		{rule(map[string]any{"args": map[string]any{"amount": json.Number("2.80"), "payee": "demo"}, "note": "extra field"})},
	}
}

// landFacts returns the facts for a land: right, absent and wrong.
func landFacts(principal map[string]any) []map[string]any {
	id, _ := principal["id"].(string)
	return []map[string]any{
		{"owner": id, "project_id": "p1", "workspace": map[string]any{"root": "/w/proj", "paths": []any{"/w/proj/a.txt", "/w/proj"}}},
		{},
		{"owner": id + "x", "project_id": "p9", "workspace": map[string]any{"root": "/w/proj", "paths": []any{"/w/proj2/a.txt"}}},
		{"owner": id, "project_id": "p1", "workspace": map[string]any{"root": "/w/proj/", "paths": []any{}}},
		{"owner": id, "project_id": "p1", "workspace": map[string]any{"root": "/w/proj", "paths": []any{"/w/proj/../etc"}}},
		{"owner": id, "project_id": "p1", "workspace": map[string]any{"paths": []any{"/w/proj/a"}}},
	}
}

// call names one row of the pack set.
type call struct {
	pack  string
	field string // verb_key or stimulus
	key   string
}

// calls lists every row of m, by pack, kind and key so that a seeded
// random walk over them is the same on every run, and a few rows that do
// not exist.
func calls(m *compile.Model) []call {
	var out []call
	for _, p := range m.Packs() {
		for _, k := range []compile.Kind{compile.Verb, compile.Stimulus} {
			for _, key := range slices.Sorted(maps.Keys(p.Rows(k))) {
				out = append(out, call{p.ID, k.Field(), key})
			}
		}
	}
	return append(out, call{"alpha", "verb_key", "nope"}, call{"gamma", "verb_key", "sync"}, call{"alpha", "stimulus", "write.personal.ask"})
}

// gridInput builds one well-formed input.
func gridInput(c call, principal map[string]any, mode any, approval map[string]any, allow []any, facts map[string]any) map[string]any {
	p := map[string]any{}
	for k, v := range principal {
		p[k] = v
	}
	p["projects"] = []any{"p1", "p2"}
	in := map[string]any{
		"principal": p,
		"pack_id":   c.pack,
		c.field:     c.key,
		"args":      map[string]any{"amount": json.Number("2.80"), "payee": "demo"},
	}
	for k, v := range approval {
		in[k] = v
	}
	for k, v := range facts {
		in[k] = v
	}
	access := map[string]any{}
	if mode != nil {
		access["mode"] = mode
	}
	if allow != nil {
		access["allow"] = allow
	}
	if len(access) > 0 || mode != nil {
		in["access"] = access
	}
	return in
}

// reparse makes an input exactly what a JSON decoder with UseNumber makes.
func reparse(v any) any {
	data, _ := json.Marshal(v)
	var out any
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	_ = dec.Decode(&out)
	return out
}
