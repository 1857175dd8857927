// Package largeset writes large, realistic pack sets and grant sets for the
// benchmarks: many packs of many commands, and grants of every shape
// (principal, role and default; with and without tenant; pack-wide and per
// command or trigger), or grants shaped as a large IdP exports them (see
// Shape), deterministically from a seed.
package largeset

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Spec sizes a set.
type Spec struct {
	Packs      int // packs
	Verbs      int // commands a pack
	Triggers   int // triggers a pack
	Grants     int // grants in all
	GrantFiles int // files the grants are spread over
	Seed       uint64
	// Shape is the mix of the grants; the zero value is Mixed.
	Shape Shape
	// Tenants are the tenants that an IdP set's grants are spread over;
	// 0 means 10,000. Mixed sets ignore it.
	Tenants int
}

// Shape is the mix of a set's grants.
type Shape uint8

// The shapes.
const (
	// Mixed holds grants of every shape: 40% role pack-wide, 20% role per
	// command, 20% principal per command, 10% principal pack-wide, 5% per
	// trigger, 5% default; 30% of them for one tenant (writeGrants).
	Mixed Shape = iota
	// IdP holds what a large IdP export holds: 90% grants to one
	// principal of one tenant on one command, and 10% grants to a role
	// of one tenant on a whole pack, over Spec.Tenants tenants
	// (writeIdPGrants).
	IdP
)

// Set is a written set: the pack folders and grant files to give
// hcp-rego.
type Set struct {
	PackDirs   []string
	GrantFiles []string
}

// Write writes the set described by s under dir.
func Write(dir string, s Spec) (*Set, error) {
	r := rand.New(rand.NewPCG(s.Seed, 1))
	set := &Set{}
	for i := range s.Packs {
		pack := filepath.Join(dir, "packs", PackID(i))
		if err := writePack(pack, PackID(i), s, r); err != nil {
			return nil, err
		}
		set.PackDirs = append(set.PackDirs, pack)
	}
	files := max(1, s.GrantFiles)
	for f := range files {
		path := filepath.Join(dir, "grants", fmt.Sprintf("g%02d.json", f))
		n := s.Grants / files
		if f == files-1 {
			n = s.Grants - n*(files-1)
		}
		write := writeGrants
		if s.Shape == IdP {
			write = writeIdPGrants
		}
		if err := write(path, n, s, r); err != nil {
			return nil, err
		}
		set.GrantFiles = append(set.GrantFiles, path)
	}
	return set, nil
}

// PackID names pack i.
func PackID(i int) string { return fmt.Sprintf("pack-%04d", i) }

// VerbKey names command j of a pack; command 0 is a connect command.
func VerbKey(j int) string {
	if j == 0 {
		return "connect"
	}
	return fmt.Sprintf("op%02d.run", j)
}

// TriggerKey names trigger t of a pack.
func TriggerKey(t int) string { return fmt.Sprintf("event%d", t) }

// row describes command j: its operation, land and confirm value.
func row(j int) (op, land string, confirm any) {
	lands := []string{"personal", "brain", "local"}
	land = lands[j%3]
	switch {
	case j == 0:
		return "write", "personal", nil
	case j%4 == 1:
		return "read", land, nil
	case j%4 == 2:
		return "write", land, true
	case j%8 == 3:
		return "write", land, "always"
	}
	return "write", land, nil
}

func writePack(dir, id string, s Spec, r *rand.Rand) error {
	commands, verbs, stimuli := map[string]any{}, map[string]any{}, map[string]any{}
	var triggers []any
	for j := range s.Verbs {
		op, land, confirm := row(j)
		entry := map[string]any{"operation": op, "privacy": map[string]any{"land": land}}
		if confirm != nil {
			entry["confirm"] = confirm
		}
		verbs[VerbKey(j)] = entry
		cli := []any{id, VerbKey(j), "{target}", "--amount", "{amount}"}
		if confirm != nil {
			cli = append(cli, "--confirm")
		}
		commands[VerbKey(j)] = map[string]any{"cli": cli}
	}
	commands["connect"] = map[string]any{"connect": true}
	for t := range s.Triggers {
		key := TriggerKey(t)
		stimuli[key] = map[string]any{"operation": "read", "privacy": map[string]any{"land": []string{"personal", "brain"}[t%2]}}
		triggers = append(triggers, map[string]any{"ref": key})
	}
	if err := writeJSON(filepath.Join(dir, "manifest.json"), map[string]any{"id": id, "commands": commands, "stimulusTriggers": triggers}); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "policy.json"), map[string]any{"surface_id": id, "version": 1, "verbs": verbs, "stimuli": stimuli})
}

// BenchGrants are the first grants of every set: role:bench may read and
// write the first pack, so that benchmark inputs have a known outcome
// (see BenchInput).
var BenchGrants = []any{
	map[string]any{"subject": "role:bench", "pack_id": PackID(0), "capabilities": []any{"verb.exec.read", "verb.exec.write"}},
}

// The bench's calls, each named by the code that its input gets on every
// set (see BenchInput).
const (
	Allowed            = "allowed"
	ConfirmRequired    = "confirm_required"
	CapabilityRequired = "capability_required"
)

// BenchCalls are the bench's calls, in the order the tables list them.
var BenchCalls = []string{Allowed, ConfirmRequired, CapabilityRequired}

// BenchInput returns the decision input of one of BenchCalls on the first
// pack: an allowed read of command 1 (brain land); a confirm-gated write
// of command 6 (personal land) that asks first, with a preview; or that
// write asked by a principal without role:bench, whom no set grants it,
// so that the chain stops at the capability. Any other call is the
// allowed one.
func BenchInput(call string) map[string]any {
	in := map[string]any{
		"principal":  map[string]any{"id": "u5", "tenant": "acme", "roles": []any{"bench", "r001"}, "projects": []any{"p-1", "p-2"}},
		"pack_id":    PackID(0),
		"verb_key":   VerbKey(1),
		"args":       map[string]any{"target": "inbox", "amount": "2.80"},
		"project_id": "p-1",
		"owner":      "u5",
		"access":     map[string]any{"mode": "ask", "allow": []any{}},
	}
	if call == ConfirmRequired || call == CapabilityRequired {
		in["verb_key"] = VerbKey(6)
		in["args"] = map[string]any{"target": "demo transit", "amount": "2.80"}
	}
	if call == CapabilityRequired {
		in["principal"] = map[string]any{"id": "u5", "tenant": "acme", "roles": []any{"guest"}, "projects": []any{"p-1", "p-2"}}
	}
	return in
}

// writeGrants writes n grants: 40% role pack-wide, 20% role per command,
// 20% principal per command, 10% principal pack-wide, 5% per trigger, 5%
// default; 30% of them for one tenant.
func writeGrants(path string, n int, s Spec, r *rand.Rand) error {
	grants := make([]any, 0, n)
	if filepath.Base(path) == "g00.json" {
		grants = append(grants, BenchGrants...)
	}
	caps := []string{"verb.exec.read", "verb.exec.write", "pack.connect"}
	for len(grants) < n {
		g := map[string]any{"pack_id": PackID(r.IntN(s.Packs))}
		switch k := r.IntN(20); {
		case k < 8:
			g["subject"], g["capabilities"] = fmt.Sprintf("role:r%03d", r.IntN(200)), []any{caps[r.IntN(2)], caps[r.IntN(3)]}
		case k < 12:
			g["subject"], g["verb_key"], g["capabilities"] = fmt.Sprintf("role:r%03d", r.IntN(200)), VerbKey(1+r.IntN(s.Verbs-1)), []any{caps[r.IntN(2)]}
		case k < 16:
			g["subject"], g["verb_key"], g["capabilities"] = fmt.Sprintf("principal:u%05d", r.IntN(30000)), VerbKey(1+r.IntN(s.Verbs-1)), []any{caps[r.IntN(2)]}
		case k < 18:
			g["subject"], g["capabilities"] = fmt.Sprintf("principal:u%05d", r.IntN(30000)), []any{caps[r.IntN(3)]}
		case k < 19 && s.Triggers > 0:
			g["subject"], g["stimulus"], g["capabilities"] = fmt.Sprintf("role:r%03d", r.IntN(200)), fmt.Sprintf("event%d", r.IntN(s.Triggers)), []any{"sense.enable"}
		default:
			g["subject"], g["capabilities"] = "default", []any{"verb.exec.read"}
		}
		if r.IntN(10) < 3 {
			g["tenant"] = "acme"
		}
		caps2 := g["capabilities"].([]any)
		if len(caps2) == 2 && caps2[0] == caps2[1] {
			g["capabilities"] = caps2[:1]
		}
		grants = append(grants, g)
	}
	return writeJSON(path, map[string]any{"version": 1, "grants": grants})
}

// writeJSON writes v with one grant or entry a line, as people write them.
func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strings.TrimSpace(string(data))+"\n"), 0o644)
}
