package compile

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// Lint checks every pack read for the coverage and consistency rules of
// docs/files.md#a-pack-manifestjson-and-policyjson and every grant read
// for the checks of docs/files.md#a-grant-file, but the inert ones (see
// Inert). It returns every finding, sorted, each at the key or
// value to change, its message the same words whatever the files hold
// and what it suggests in its Hint (a line of its own); nil when there is
// none. Problems reading the files are
// Err's, not Lint's. It checks the packs that grants name only when no
// pack is missing (see MarkPacksMissing). After Check, which found the
// sources clean, it finds nothing.
func (s *Sources) Lint() error {
	if s.checked != nil {
		return nil
	}
	var errs problem.Errors
	h := &hints{}
	for _, p := range slices.Concat(s.packs, s.dropped) {
		p.lintCoverage(&errs, h)
		p.lintRows(&errs)
	}
	for _, g := range s.linted() {
		g.lintScope(&errs)
		if !s.packsMissing {
			g.lintTarget(&s.contents, &errs, h)
		}
	}
	return errs.Err()
}

// lintCoverage checks that policy and manifest name the same commands and
// triggers, and that surface_id is the manifest id.
func (p *Pack) lintCoverage(errs *problem.Errors, h *hints) {
	if sid := p.policy.Field("surface_id"); sid.Text != p.ID {
		errs.Add(p.PolicyFile, sid.Pos, "policy surface_id %q !== %q", sid.Text, p.ID)
	}
	// What one side names and the other lacks: a misspelt key is often
	// on both lists, so each message names the other side's.
	unlistedVerbs, unlistedStimuli := missing(p.commands, p.Verbs), missing(p.triggers, p.Stimuli)
	orphanVerbs, orphanStimuli := missing(p.Verbs, p.commands), missing(p.Stimuli, p.triggers)
	policyLacks := fmt.Sprintf("%s's verbs the manifest lacks", printable.Quote(p.PolicyFile))
	for _, key := range unlistedVerbs {
		errs.Add(p.ManifestFile, p.commands[key].KeyPos, "verb %q missing from policy.json", key).Hint = h.suggest(policyLacks, key, orphanVerbs)
	}
	policyLacks = fmt.Sprintf("%s's stimuli the manifest lacks", printable.Quote(p.PolicyFile))
	for _, key := range unlistedStimuli {
		errs.Add(p.ManifestFile, p.triggers[key].Pos, "stimulus %q missing from policy.json", key).Hint = h.suggest(policyLacks, key, orphanStimuli)
	}
	for _, key := range orphanVerbs {
		errs.Add(p.PolicyFile, p.Verbs[key].node.KeyPos, "policy verb %q not in pack manifest", key).Hint = p.manifestHas(h, "commands", key, p.commands)
	}
	for _, key := range orphanStimuli {
		errs.Add(p.PolicyFile, p.Stimuli[key].node.KeyPos, "policy stimulus %q not in stimulusTriggers", key).Hint = p.manifestHas(h, "stimulusTriggers", key, p.triggers)
	}
}

// lintRows checks each row for what the seed's rules imply: confirm only on
// writes, triggers only read, connect commands write, and a confirm gate
// that the command's CLI face can pass. A row that breaks two of them gets
// one finding, its root cause's
// (docs/files.md#a-pack-manifestjson-and-policyjson): a read with confirm
// is not also held to its cli[], and a connect command that is read must
// be write, which makes its confirm right too.
func (p *Pack) lintRows(errs *problem.Errors) {
	for _, k := range []Kind{Verb, Stimulus} {
		for _, r := range p.Rows(k) {
			p.lintRow(errs, k, r)
		}
	}
}

// lintRow is lintRows' finding for one row, if any.
func (p *Pack) lintRow(errs *problem.Errors, k Kind, r *Row) {
	noun := "verb"
	if k == Stimulus {
		noun = "stimulus"
	}
	op := r.node.Field("operation")
	cli := p.commands[r.Key].Field("cli")
	switch {
	case k == Stimulus && r.Operation == "write":
		errs.Add(p.PolicyFile, op.Pos, "stimulus %q must be read: a trigger cannot write", r.Key)
	case r.Connect && r.Operation == "read":
		errs.Add(p.PolicyFile, op.Pos, "verb %q establishes a Binding and must be write", r.Key)
	case r.Operation == "read" && r.Gate != NoGate:
		errs.Add(p.PolicyFile, r.node.Field("confirm").KeyPos, "%s %q is read: confirm is for writes only", noun, r.Key)
	case k == Verb && r.Gate != NoGate && cli != nil && !takesConfirm(r.CLI):
		errs.Add(p.ManifestFile, cli.Pos, "verb %q is confirm-gated but its cli[] takes neither --confirm nor --apply", r.Key)
	}
}

// takesConfirm reports whether a CLI template carries --confirm or --apply.
func takesConfirm(cli []string) bool {
	return slices.Contains(cli, "--confirm") || slices.Contains(cli, "--apply")
}

// lintTarget checks that a grant names a pack, verb or trigger that
// exists.
func (g *Grant) lintTarget(c *contents, errs *problem.Errors, h *hints) {
	p := c.Pack(g.PackID)
	switch {
	case p == nil:
		errs.Add(g.File, g.places.pack.pos(), "grant %d: pack %q not in the compiled packs", g.N, g.PackID).
			Hint = h.suggest("the compiled packs", g.PackID, c.packIDs())
	case g.VerbKey != "" && p.Verbs[g.VerbKey] == nil:
		errs.Add(g.File, g.places.scope.pos(), "grant %d: verb %q not in policy for pack %q", g.N, g.VerbKey, g.PackID).
			Hint = h.suggest(fmt.Sprintf("the verbs of pack %q", g.PackID), g.VerbKey, slices.Collect(maps.Keys(p.Verbs)))
	case g.Stimulus != "" && p.Stimuli[g.Stimulus] == nil:
		errs.Add(g.File, g.places.scope.pos(), "grant %d: stimulus %q not in policy for pack %q", g.N, g.Stimulus, g.PackID).
			Hint = h.suggest(fmt.Sprintf("the stimuli of pack %q", g.PackID), g.Stimulus, slices.Collect(maps.Keys(p.Stimuli)))
	}
}

// lintScope checks that a grant's capabilities fit its scope.
func (g *Grant) lintScope(errs *problem.Errors) {
	for i, c := range g.Capabilities {
		if !g.misfits(c) {
			continue
		}
		pos := (*g.places.capabilities)[i]
		if g.VerbKey != "" {
			errs.Add(g.File, pos, "grant %d: capability %q cannot be granted on a verb_key", g.N, c).
				Hint = fmt.Sprintf("a command takes %s, %s or %s", CapRead, CapWrite, CapConnect)
			continue
		}
		errs.Add(g.File, pos, "grant %d: capability %q cannot be granted on a stimulus", g.N, c).
			Hint = fmt.Sprintf("a trigger takes %s", CapSense)
	}
}

// manifestHas is the hint of a message about a policy row that the
// manifest lacks: the manifest file, and what its section names, closest
// first.
func (p *Pack) manifestHas(h *hints, section, key string, names map[string]*document.Node) string {
	if len(names) == 0 {
		return fmt.Sprintf("%s names no %s", printable.Quote(p.ManifestFile), section)
	}
	return h.suggest(fmt.Sprintf("%s's %s", printable.Quote(p.ManifestFile), section), key, slices.Collect(maps.Keys(names)))
}

// missing lists, sorted, the keys of have that want lacks.
func missing[A, B any](have map[string]A, want map[string]B) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(have)) {
		if _, ok := want[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// packIDs are the ids of the packs read.
func (c *contents) packIDs() []string {
	ids := make([]string, 0, len(c.packs))
	for _, p := range c.packs {
		ids = append(ids, p.ID)
	}
	return ids
}
