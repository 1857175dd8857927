package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
	"github.com/hcp-rego/hcp-rego/internal/bundletest"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// r2SeedShift is added to a set's seed for its second revision: a pack's
// files do not depend on the seed, so r2 has the same packs and as many
// grants, drawn otherwise.
const r2SeedShift = 1000

// rolloutInputCount is how many inputs the client cycles over, half drawn
// from each revision's grants.
const rolloutInputCount = 400

// revisionFile is one revision of a set as the hub serves it, with the
// decision it gives each input of its case.
type revisionFile struct {
	name    string
	data    []byte   // the bundle file
	answers []string // the decision documents, normalized JSON, by input
}

// rolloutCase is one set's two revisions and the decisions the client
// asks for.
type rolloutCase struct {
	set         *set
	revs        [2]*revisionFile
	bodies      [][]byte // request bodies, {"input": ...}
	differ      int      // inputs that r1 and r2 answer otherwise
	codesDiffer int      // of those, the ones with another code
}

// caseBuild says how a rollout case's revisions are built: by which
// hcp-rego (this tree's or the baseline's), named tag-r1 and tag-r2, and
// turned into which layout, if any (for r1 at 0, r2 at 1).
type caseBuild struct {
	hcp, tag string
	layout   func(rev int) func(*bundle.Bundle) *bundle.Bundle
}

// rolloutCase writes s's second revision, builds both as how says, and
// decides every input with the embedded evaluator on each.
func (t *tools) rolloutCase(s *set, how caseBuild) (*rolloutCase, error) {
	spec := s.spec
	spec.Seed += r2SeedShift
	files, err := largeset.Write(filepath.Join(t.work, "sets", s.name+"-r2"), spec)
	if err != nil {
		return nil, err
	}
	// r1's pack folders, so that the revisions differ in their grants
	// alone, as a grant change rolled out does: a decision names its row's
	// file (source.row), and would differ by that path too.
	files.PackDirs = s.files.PackDirs
	sources := [2]*set{s, {name: s.name + "-r2", spec: spec, files: files}}
	var grants [2][]map[string]any
	for i, src := range sources {
		if grants[i], err = sampleGrants(src.files.GrantFiles, spec.Grants, rolloutInputCount/2); err != nil {
			return nil, err
		}
	}
	c := &rolloutCase{set: s}
	inputs := decisionInputs(grants, spec.Verbs)
	for _, in := range inputs {
		body, _ := json.Marshal(map[string]any{"input": in})
		c.bodies = append(c.bodies, body)
	}
	for i, src := range sources {
		var layout func(*bundle.Bundle) *bundle.Bundle
		if how.layout != nil {
			layout = how.layout(i)
		}
		name := fmt.Sprintf("%s-r%d", how.tag, i+1)
		if c.revs[i], err = t.revisionFile(how.hcp, src, name, layout, c.bodies); err != nil {
			return nil, err
		}
	}
	for i := range c.bodies {
		a, b := c.revs[0].answers[i], c.revs[1].answers[i]
		if a != b {
			c.differ++
			if decisionCode(a) != decisionCode(b) {
				c.codesDiffer++
			}
		}
	}
	return c, nil
}

// layoutOf is what turns revision rev (0 for r1) into the layout -layout
// asks for, nil for the bundle as built.
func (t *tools) layoutOf(rev int) func(*bundle.Bundle) *bundle.Bundle {
	switch {
	case t.layout == layoutLegacy, t.layout == layoutUpgrade && rev == 0:
		return bundletest.LegacyLayout
	case t.layout == layoutListed && rev == 0:
		return bundletest.ListedManifest
	}
	return nil
}

// revisionFile builds src's bundle with the hcp-rego binary hcp as
// revision name, in the layout that layout gives it if any, and decides
// each request body's input with the embedded evaluator on it.
func (t *tools) revisionFile(hcp string, src *set, name string, layout func(*bundle.Bundle) *bundle.Bundle, bodies [][]byte) (*revisionFile, error) {
	file := filepath.Join(t.work, name+".tar.gz")
	if _, err := t.exec(hcp, append(append([]string{"build"}, src.args()...), "-o", file, "--revision", name)...); err != nil {
		return nil, err
	}
	limits := bundles.DefaultLimits
	if hcp == t.before {
		// The baseline's bundles hold one module a pack: at 10,000 packs
		// they pass the terms bound, which is sized for the library alone.
		limits.Terms *= 16
	}
	b, err := bundles.Read(file, nil, limits)
	if err != nil {
		return nil, err
	}
	if layout != nil {
		b = layout(b)
		data, err := bundles.Build(b, nil)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return nil, err
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	ev, err := hcprego.New(t.ctx, b)
	if err != nil {
		return nil, err
	}
	rev := &revisionFile{name: name, data: data}
	for _, body := range bodies {
		var req struct{ Input any }
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&req); err != nil {
			return nil, err
		}
		res, err := ev.Decide(t.ctx, req.Input)
		if err != nil {
			return nil, err
		}
		rev.answers = append(rev.answers, normalJSON(res.Decision.Doc))
	}
	return rev, nil
}

// sampleGrants reads the grant files as largeset writes them, total
// grants in all, one grant at a time, and keeps want of them evenly over
// the list: the grant at k*total/want for each k. A million grants held
// as maps would cost the report more than the sidecar it measures.
func sampleGrants(files []string, total, want int) ([]map[string]any, error) {
	var out []map[string]any
	n := 0
	for _, f := range files {
		err := eachGrant(f, func(dec *json.Decoder) error {
			if len(out) < want && n == len(out)*total/want {
				var g map[string]any
				if err := dec.Decode(&g); err != nil {
					return err
				}
				out = append(out, g)
			} else {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return err
				}
			}
			n++
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f, err)
		}
	}
	if n != total || len(out) != want {
		return nil, fmt.Errorf("%d grants in %d files, want %d", n, len(files), total)
	}
	return out, nil
}

// eachGrant calls read with the decoder at each grant of a grant file,
// {"version": 1, "grants": [...]}, in turn; read decodes it.
func eachGrant(path string, read func(*json.Decoder) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		if key != "grants" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if _, err := dec.Token(); err != nil { // [
			return err
		}
		for dec.More() {
			if err := read(dec); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // ]
			return err
		}
	}
	return nil
}

// decisionInputs draws rolloutInputCount inputs from the two revisions'
// sampled grants in turn: each names the pack and the principal or role
// of a grant, so that one revision allows many of them and the other,
// which lacks the grant, mostly does not.
func decisionInputs(grants [2][]map[string]any, verbs int) []map[string]any {
	var inputs []map[string]any
	for k := range rolloutInputCount / 2 {
		for rev := range 2 {
			inputs = append(inputs, grantInput(grants[rev][k], len(inputs), verbs))
		}
	}
	return inputs
}

// grantInput is the decision input of call i that grant g speaks of: its
// pack, its principal or a principal with its role, its command, trigger
// or, for a pack-wide grant, one of the pack's commands; the tenant the
// grant names, or every other time another; the facts that the lands
// ask for, so that a call is decided by its grants.
func grantInput(g map[string]any, i, verbs int) map[string]any {
	id, roles := fmt.Sprintf("u%05d", 40000+i), []any{fmt.Sprintf("r%03d", i%200)}
	subject, _ := g["subject"].(string)
	if role, ok := strings.CutPrefix(subject, "role:"); ok {
		roles = []any{role}
	}
	if principal, ok := strings.CutPrefix(subject, "principal:"); ok {
		id = principal
	}
	tenant := "globex"
	if g["tenant"] != nil || i%2 == 0 {
		tenant = "acme"
	}
	in := map[string]any{
		"principal":  map[string]any{"id": id, "tenant": tenant, "roles": roles, "projects": []any{"p-1"}},
		"pack_id":    g["pack_id"],
		"project_id": "p-1",
		"owner":      id,
		"workspace":  map[string]any{"root": "/home/" + id, "paths": []any{"/home/" + id + "/out.txt"}},
	}
	switch {
	case g["stimulus"] != nil:
		in["stimulus"] = g["stimulus"]
	case g["verb_key"] != nil:
		in["verb_key"] = g["verb_key"]
	default:
		in["verb_key"] = largeset.VerbKey(1 + i%(verbs-1))
	}
	if in["verb_key"] != nil {
		in["args"] = map[string]any{"target": "inbox", "amount": "2.80"}
	}
	return in
}

// normalJSON is v as JSON after a round trip through encoding/json's
// own values, so that the sidecar's and the evaluator's answers compare
// byte for byte: keys sorted, numbers as float64.
func normalJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var x any
	if err := json.Unmarshal(data, &x); err != nil {
		return ""
	}
	data, _ = json.Marshal(x)
	return string(data)
}

// decisionCode is the code of a decision given as normalized JSON.
func decisionCode(doc string) string {
	var d struct{ Code string }
	json.Unmarshal([]byte(doc), &d)
	return d.Code
}
