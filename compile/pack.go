package compile

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/schema"
)

// readChecked reads one JSON file, parses it with the run's budget and
// validates it against the named schema. It returns the tree, the file's
// sha256, and every problem. A path that is not UTF-8 is refused
// (errNotUTF8).
func readChecked(path, schemaName string, budget *document.Budget) (*document.Node, string, error) {
	if !utf8.ValidString(path) {
		return nil, "", errNotUTF8(path)
	}
	data, err := document.ReadSource(path, budget, document.MaxFileBytes)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(data)
	root, err := document.ParseJSON(path, data, budget)
	if err != nil {
		return nil, "", err
	}
	if err := schema.Get(schemaName).Validate(path, root); err != nil {
		return nil, "", err
	}
	return root, hex.EncodeToString(sum[:]), nil
}

// loadPack reads and validates the pack in dir. It reports every problem
// of both files, not just the first. A manifest that repeats a trigger is
// an error, but the pack is returned with it, so that Load's caller can
// still lint the rest of the pack (see Load).
func loadPack(dir string, budget *document.Budget) (*Pack, error) {
	p := &Pack{
		Dir:          filepath.ToSlash(dir),
		PolicyFile:   filepath.ToSlash(filepath.Join(dir, "policy.json")),
		ManifestFile: filepath.ToSlash(filepath.Join(dir, "manifest.json")),
		Digests:      map[string]string{},
	}
	var errs problem.Errors
	var policySum, manifestSum string
	var err error
	p.manifest, manifestSum, err = readChecked(p.ManifestFile, "manifest", budget)
	errs.Merge(p.ManifestFile, err)
	if budget.Refused() {
		// The run is past its limits: they are told once, where.
		return nil, errs.Err()
	}
	p.policy, policySum, err = readChecked(p.PolicyFile, "policy", budget)
	errs.Merge(p.PolicyFile, err)
	if len(errs) > 0 {
		return nil, errs.Err()
	}
	p.Digests[p.ManifestFile], p.Digests[p.PolicyFile] = manifestSum, policySum
	p.ID = p.manifest.Field("id").Text
	err = p.readManifest()
	p.Verbs = p.readRows(Verb)
	p.Stimuli = p.readRows(Stimulus)
	return p, err
}

// readManifest indexes the manifest's commands and trigger refs.
func (p *Pack) readManifest() error {
	p.commands, p.triggers = map[string]*document.Node{}, map[string]*document.Node{}
	for _, cmd := range p.manifest.Field("commands").Members() {
		p.commands[cmd.Key] = cmd
	}
	var errs problem.Errors
	for _, t := range p.manifest.Field("stimulusTriggers").Members() {
		ref := t
		if t.Kind == document.Object {
			ref = t.Field("ref")
		}
		if first, dup := p.triggers[ref.Text]; dup {
			errs.Add(p.ManifestFile, ref.Pos, "stimulus %q declared twice in stimulusTriggers (first at %d:%d)", ref.Text, first.Pos.Line, first.Pos.Col)
			continue
		}
		p.triggers[ref.Text] = ref
	}
	return errs.Err()
}

// readRows builds the rows of one kind from the validated policy.json.
func (p *Pack) readRows(k Kind) map[string]*Row {
	rows := map[string]*Row{}
	for _, n := range p.policy.Field(k.Section()).Members() {
		r := &Row{
			Pack:      p.ID,
			Kind:      k,
			Key:       n.Key,
			Operation: n.Field("operation").Text,
			Land:      n.Field("privacy").Field("land").Text,
			Gate:      gateOf(n.Field("confirm")),
			File:      p.PolicyFile,
			Line:      n.KeyPos.Line,
			node:      n,
		}
		if k == Verb {
			cmd := p.commands[n.Key]
			r.Connect = isConnectKey(n.Key) || cmd.Field("connect").IsTrue()
			if cli := cmd.Field("cli"); cli != nil {
				r.CLI = cli.Strings()
			}
		}
		rows[n.Key] = r
	}
	return rows
}

func gateOf(n *document.Node) Gate {
	switch {
	case n == nil:
		return NoGate
	case n.Kind == document.String:
		return GateAlways
	case n.Bool:
		return GateTrue
	}
	return NoGate
}
