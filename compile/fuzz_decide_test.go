package compile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/reference"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// manifestFor returns a manifest that declares every verb and stimulus of
// a policy (as far as encoding/json reads it), with a cli template for
// each command that passes its gate, so that the pair lints clean when
// the policy is valid. Anything unreadable gets an empty manifest.
func manifestFor(policy []byte) []byte {
	var p struct {
		SurfaceID string                     `json:"surface_id"`
		Verbs     map[string]json.RawMessage `json:"verbs"`
		Stimuli   map[string]json.RawMessage `json:"stimuli"`
	}
	_ = json.Unmarshal(policy, &p)
	commands := map[string]any{}
	for key := range p.Verbs {
		commands[key] = map[string]any{"cli": []string{"x", key, "{a}", "--b", "{b}", "--confirm"}}
	}
	triggers := []any{}
	for key := range p.Stimuli {
		triggers = append(triggers, map[string]any{"ref": key})
	}
	data, _ := json.Marshal(map[string]any{"id": p.SurfaceID, "commands": commands, "stimulusTriggers": triggers})
	return data
}

// policyFor returns a policy with a lint-clean row for every command and
// trigger of a manifest: commands write to local land, gated when their
// cli template (if any) passes a gate, "always" on every third; triggers
// read.
func policyFor(manifest []byte) []byte {
	var m struct {
		ID       string `json:"id"`
		Commands map[string]struct {
			CLI []string `json:"cli"`
		} `json:"commands"`
		Triggers []json.RawMessage `json:"stimulusTriggers"`
	}
	_ = json.Unmarshal(manifest, &m)
	verbs, stimuli := map[string]any{}, map[string]any{}
	for key, c := range m.Commands {
		row := map[string]any{"operation": "write", "privacy": map[string]any{"land": "local"}}
		if c.CLI == nil || slices.Contains(c.CLI, "--confirm") || slices.Contains(c.CLI, "--apply") {
			row["confirm"] = []any{true, "always", false}[len(verbs)%3]
		}
		verbs[key] = row
	}
	for _, raw := range m.Triggers {
		var ref struct{ Ref string }
		var key string
		if json.Unmarshal(raw, &key) != nil && json.Unmarshal(raw, &ref) == nil {
			key = ref.Ref
		}
		stimuli[key] = map[string]any{"operation": "read", "privacy": map[string]any{"land": "personal"}}
	}
	data, _ := json.Marshal(map[string]any{"surface_id": m.ID, "verbs": verbs, "stimuli": stimuli})
	return data
}

// argValues are the values the agreement check gives a template's
// arguments: plain, quoted, empty, a number, an object; every fifth is
// left out, so that its flag is dropped from the preview.
var argValues = []any{"v", "a b", "", json.Number("2.50"), map[string]any{"k": "<&>"}}

var placeholder = regexp.MustCompile(`^\{([^{}]+)\}$`)

// agree compiles m into a bundle, prepares the embedded evaluator on it,
// and decides a call of every row by each caller (one named by no grant,
// and one holding the subject and tenant of each of the first grants),
// with every land fact given and arguments for the template, with it and
// with the Go reference: the decision documents and GPARS errors must be
// equal.
func agree(t *testing.T, m *compile.Model) {
	t.Helper()
	b, err := compile.Compile(m, "fuzz")
	if err != nil {
		t.Fatalf("a model that lints clean does not assemble: %v", err)
	}
	ev, err := hcprego.New(context.Background(), b)
	if err != nil {
		t.Fatalf("the bundle of a model that lints clean does not prepare: %v", err)
	}
	grants := m.Grants()
	ref := reference.New(m.Packs(), grants)
	callers := []map[string]any{{"id": "fuzz-caller"}}
	for _, g := range grants[:min(len(grants), 8)] {
		callers = append(callers, callerOf(g))
	}
	for _, p := range m.Packs() {
		for _, k := range []compile.Kind{compile.Verb, compile.Stimulus} {
			for _, r := range p.Rows(k) {
				for _, caller := range callers {
					agreeOn(t, ev, ref, rowInput(caller, p.ID, r))
				}
			}
		}
	}
}

// callerOf is a principal that grant g applies to.
func callerOf(g *compile.Grant) map[string]any {
	p := map[string]any{"id": "fuzz-caller"}
	if id, ok := strings.CutPrefix(g.Subject, "principal:"); ok {
		p["id"] = id
	}
	if role, ok := strings.CutPrefix(g.Subject, "role:"); ok {
		p["roles"] = []any{role}
	}
	if g.Tenant != "" {
		p["tenant"] = g.Tenant
	}
	return p
}

// agreeOn decides one input with both evaluators.
func agreeOn(t *testing.T, ev *hcprego.Evaluator, ref *reference.Evaluator, in any) {
	t.Helper()
	res, err := ev.Decide(context.Background(), in)
	if err != nil {
		t.Fatalf("decide %s: %v", canonical(in), err)
	}
	want := ref.Decide(in, reference.Ext{})
	if got, want := canonical(res.Decision.Doc), canonical(want); got != want {
		t.Fatalf("Rego and the reference disagree on %s\n     rego: %s\nreference: %s", canonical(in), got, want)
	}
	if got, want := canonical(res.GPARSError), canonical(reference.GPARSError(want)); got != want {
		t.Fatalf("gpars_error differs on %s\n     rego: %s\nreference: %s", canonical(in), got, want)
	}
}

// rowInput is a call of row r by caller, decoded as a JSON decoder with
// UseNumber would decode it.
func rowInput(caller map[string]any, pack string, r *compile.Row) any {
	args := map[string]any{}
	for i, token := range r.CLI {
		if name := placeholder.FindStringSubmatch(token); name != nil && i%5 != 4 {
			args[name[1]] = argValues[i%len(argValues)]
		}
	}
	principal := map[string]any{"projects": []any{"p"}}
	for k, v := range caller {
		principal[k] = v
	}
	in := map[string]any{
		"principal":    principal,
		"pack_id":      pack,
		r.Kind.Field(): r.Key,
		"owner":        principal["id"],
		"project_id":   "p",
		"workspace":    map[string]any{"root": "/w", "paths": []any{"/w/x"}},
		"args":         args,
	}
	var out any
	dec := json.NewDecoder(strings.NewReader(canonical(in)))
	dec.UseNumber()
	_ = dec.Decode(&out)
	return out
}

// canonical is v's JSON text with numbers as written and keys sorted.
func canonical(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unmarshalable %T: %v", v, err)
	}
	var out any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	_ = dec.Decode(&out)
	data, _ = json.Marshal(out)
	return string(data)
}
