package rego_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/reference"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// A generated pack set for the differential tests: pack "alpha" has a
// command for every operation × land × confirm value (writes only carry a
// gate, as lint demands) × connect flag, with and without a cli template,
// and a trigger for every land; pack "beta-pack" (an id with "-") has a
// command and a trigger that share a key.

var (
	operations = []string{"read", "write"}
	lands      = []string{"personal", "brain", "local"}
	confirms   = []string{"", "true", `"always"`}
)

// alphaPack returns the manifest and policy of pack alpha.
func alphaPack() (manifest, policy string) {
	var cmds, verbs, stims []string
	for _, op := range operations {
		for _, land := range lands {
			for _, confirm := range confirms {
				if op == "read" && confirm != "" {
					continue
				}
				for _, connect := range []bool{false, true} {
					if connect && op == "read" {
						continue
					}
					key := rowKey(op, land, confirm, connect)
					cmds = append(cmds, fmt.Sprintf("%q: %s", key, commandEntry(key, confirm, connect)))
					entry := fmt.Sprintf(`{"operation": %q, "privacy": {"land": %q}`, op, land)
					if confirm != "" {
						entry += `, "confirm": ` + confirm
					}
					verbs = append(verbs, fmt.Sprintf("%q: %s}", key, entry))
				}
			}
		}
	}
	for _, land := range lands {
		stims = append(stims, fmt.Sprintf(`"seen.%s": {"operation": "read", "privacy": {"land": %q}}`, land, land))
	}
	manifest = fmt.Sprintf(`{"id": "alpha", "commands": {%s}, "stimulusTriggers": ["seen.personal", {"ref": "seen.brain"}, "seen.local"]}`,
		strings.Join(cmds, ",\n"))
	policy = fmt.Sprintf("{\"surface_id\": \"alpha\", \"version\": 1,\n\"verbs\": {\n%s\n},\n\"stimuli\": {\n%s\n}}",
		strings.Join(verbs, ",\n"), strings.Join(stims, ",\n"))
	return manifest, policy
}

func rowKey(op, land, confirm string, connect bool) string {
	gate := map[string]string{"": "open", "true": "ask", `"always"`: "always"}[confirm]
	key := fmt.Sprintf("%s.%s.%s", op, land, gate)
	if connect {
		key += ".connect"
	}
	return key
}

// commandEntry gives most commands a cli template: gated ones pass the gate
// with --confirm or --apply; some drop a flag with its absent argument; one
// has a token with a space; ungated personal writes have none.
func commandEntry(key, confirm string, connect bool) string {
	switch {
	case connect:
		return `{"connect": true}`
	case strings.HasPrefix(key, "write.personal.open"):
		return `{}`
	case confirm == `"always"`:
		return fmt.Sprintf(`{"cli": ["alpha", %q, "{amount}", "--to", "{payee}", "--apply"]}`, key)
	case confirm == "true":
		return `{"cli": ["alpha", "run it", "{amount}", "--note", "{note}", "--confirm"]}`
	}
	return fmt.Sprintf(`{"cli": ["alpha", %q, "--path", "{path}"]}`, key)
}

const betaManifest = `{"id": "beta-pack", "commands": {"sync": {"cli": ["beta", "sync", "{what}", "--confirm"]}, "beta.connect": {}}, "stimulusTriggers": ["sync"]}`

const betaPolicy = `{"surface_id": "beta-pack", "verbs": {
  "sync": {"operation": "write", "privacy": {"land": "personal"}, "confirm": true},
  "beta.connect": {"operation": "write", "privacy": {"land": "brain"}}
}, "stimuli": {
  "sync": {"operation": "read", "privacy": {"land": "personal"}}
}}`

// Two grant files, so that provenance counts files in order: every grant
// shape (principal, role, default; with and without tenant; pack-wide,
// verb_key, stimulus; each capability).
const grantsA = `{"version": 1, "grants": [
  {"subject": "principal:alice", "pack_id": "alpha", "capabilities": ["verb.exec.read", "verb.exec.write"]},
  {"subject": "role:member", "pack_id": "alpha", "verb_key": "write.personal.ask", "capabilities": ["verb.exec.write"]},
  {"subject": "role:member", "tenant": "acme", "pack_id": "alpha", "capabilities": ["verb.exec.read"]},
  {"subject": "role:ops", "pack_id": "alpha", "capabilities": ["pack.connect"]},
  {"subject": "role:watch", "pack_id": "alpha", "stimulus": "seen.personal", "capabilities": ["sense.enable"]},
  {"subject": "default", "pack_id": "alpha", "capabilities": ["verb.exec.read"]},
  {"subject": "principal:bob", "tenant": "beta", "pack_id": "beta-pack", "capabilities": ["verb.exec.write", "sense.enable"]},
  {"subject": "role:member", "pack_id": "alpha", "verb_key": "read.brain.open", "capabilities": ["verb.exec.write"]}
]}`

const grantsB = `{"version": 1, "grants": [
  {"subject": "role:member", "pack_id": "alpha", "capabilities": ["verb.exec.write"]},
  {"subject": "default", "pack_id": "beta-pack", "verb_key": "sync", "capabilities": ["verb.exec.write"]},
  {"subject": "role:watch", "tenant": "acme", "pack_id": "alpha", "capabilities": ["sense.enable"]},
  {"subject": "principal:carol", "pack_id": "beta-pack", "capabilities": ["verb.exec.read"]},
  {"subject": "principal:alice", "tenant": "acme", "pack_id": "alpha", "verb_key": "write.local.always", "capabilities": ["verb.exec.write"]},
  {"subject": "default", "tenant": "acme", "pack_id": "beta-pack", "capabilities": ["pack.connect", "sense.enable"]}
]}`

// diffModel writes the pack set into a temporary folder and loads it.
func diffModel(t testing.TB) *compile.Model {
	t.Helper()
	dir := t.TempDir()
	treetest.Write(t, dir, diffFiles())
	m, err := compile.Checked(
		[]string{filepath.Join(dir, "packs/alpha"), filepath.Join(dir, "packs/beta-pack")},
		[]string{filepath.Join(dir, "grants/a.json"), filepath.Join(dir, "grants/b.json")})
	if err != nil {
		t.Fatalf("the differential pack set must load and lint clean:\n%v", err)
	}
	return m
}

// diffFiles are the files of the pack set, by path.
func diffFiles() map[string]string {
	manifest, policy := alphaPack()
	return map[string]string{
		"packs/alpha/manifest.json":     manifest,
		"packs/alpha/policy.json":       policy,
		"packs/beta-pack/manifest.json": betaManifest,
		"packs/beta-pack/policy.json":   betaPolicy,
		"grants/a.json":                 grantsA,
		"grants/b.json":                 grantsB,
	}
}

// pair decides with both implementations.
type pair struct {
	rego *hcprego.Evaluator
	ref  *reference.Evaluator
	ext  reference.Ext
}

// newPair prepares both evaluators for m, with a runtime layer (hcp.ext)
// holding the given Rego module text for Rego and ext for the reference.
func newPair(t testing.TB, m *compile.Model, extModule string, ext reference.Ext) *pair {
	t.Helper()
	b, err := compile.Compile(m, "test")
	if err != nil {
		t.Fatal(err)
	}
	var opts []hcprego.Option
	if extModule != "" {
		opts = append(opts, hcprego.WithModule("ext.rego", extModule))
	}
	ev, err := hcprego.New(context.Background(), b, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return &pair{rego: ev, ref: reference.New(m.Packs(), m.Grants()), ext: ext}
}

// compare decides input with both and returns a description of every
// difference, or "" when they agree field by field (GPARS errors too).
func (p *pair) compare(input any) (regoDecision map[string]any, diff string) {
	res, err := p.rego.Decide(context.Background(), input)
	if err != nil {
		return nil, "rego: " + err.Error()
	}
	want := p.ref.Decide(input, p.ext)
	diffs := diffJSON("decision", normalize(res.Decision.Doc), normalize(want))
	if reasons, _ := want["reasons"].([]any); want["code"] == "invalid_input" && len(reasons) == 0 {
		diffs = append(diffs, "the reference's invalid_input names no problem of the input")
	}
	var wantErr any
	if g := reference.GPARSError(want); g != nil {
		wantErr = g
	}
	var gotErr any
	if res.GPARSError != nil {
		gotErr = res.GPARSError
	}
	diffs = append(diffs, diffJSON("gpars_error", normalize(gotErr), normalize(wantErr))...)
	return res.Decision.Doc, strings.Join(diffs, "\n")
}

// normalize round-trips a value through JSON so that both sides compare as
// the same Go types.
func normalize(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unmarshalable: %v", err)
	}
	var out any
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	_ = dec.Decode(&out)
	return out
}

// diffJSON lists the paths at which two normalized JSON values differ.
func diffJSON(path string, got, want any) []string {
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		keys := map[string]bool{}
		for k := range gm {
			keys[k] = true
		}
		for k := range wm {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		var out []string
		for _, k := range sorted {
			out = append(out, diffJSON(path+"."+k, gm[k], wm[k])...)
		}
		return out
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		return []string{fmt.Sprintf("  %s: rego %s, reference %s", path, g, w)}
	}
	return nil
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
