package reference

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hcp-rego/hcp-rego/compile"
)

// ledgerManifest and ledgerPolicy make the pack most tests decide against.
// Rows sit on known lines, which source.row names.
const ledgerManifest = `{
  "id": "ledger",
  "commands": {
    "transfer": { "cli": ["ledger", "transfer", "{amount}", "--to", "{payee}", "--confirm"] },
    "balance":  { "cli": ["ledger", "balance"] },
    "connect":  { "connect": true },
    "close":    { "cli": ["ledger", "close", "{account}", "--apply"] },
    "wipe":     {},
    "note":     { "cli": ["ledger", "note", "{text}"] },
    "report":   { "cli": ["ledger", "report", "--project", "{project}"] },
    "export":   { "cli": ["ledger", "export", "{path}"] }
  },
  "stimulusTriggers": [ { "ref": "payment_received" }, "file_changed" ]
}`

const ledgerPolicy = `{
  "surface_id": "ledger",
  "verbs": {
    "transfer": { "operation": "write", "privacy": { "land": "personal" }, "confirm": true },
    "balance":  { "operation": "read",  "privacy": { "land": "personal" } },
    "connect":  { "operation": "write", "privacy": { "land": "personal" } },
    "close":    { "operation": "write", "privacy": { "land": "personal" }, "confirm": "always" },
    "wipe":     { "operation": "write", "privacy": { "land": "personal" }, "confirm": "always" },
    "note":     { "operation": "write", "privacy": { "land": "personal" }, "confirm": false },
    "report":   { "operation": "read",  "privacy": { "land": "brain" } },
    "export":   { "operation": "write", "privacy": { "land": "local" } }
  },
  "stimuli": {
    "payment_received": { "operation": "read", "privacy": { "land": "personal" } },
    "file_changed":     { "operation": "read", "privacy": { "land": "local" } }
  }
}`

// memberGrants gives role:member everything on the ledger pack.
const memberGrants = `{
  "grants": [
    { "subject": "role:member", "pack_id": "ledger",
      "capabilities": ["verb.exec.read", "verb.exec.write", "pack.connect", "sense.enable"] }
  ]
}`

// fixture is a tree of packs and grant files written to a temporary
// directory, which becomes the working directory so that sources read
// "packs/ledger/policy.json:4".
type fixture struct {
	packs  map[string][2]string // pack folder name → manifest, policy
	grants [][2]string          // grant file name, text; in the order given
}

// ledgerFixture is the ledger pack with the given grant files.
func ledgerFixture(grants ...[2]string) fixture {
	return fixture{packs: map[string][2]string{"ledger": {ledgerManifest, ledgerPolicy}}, grants: grants}
}

// sources writes the fixture and reads it, unchecked: the reference
// decides what docs/decisions.md says about grants that lint rejects, too.
func (f fixture) sources(t testing.TB) *compile.Sources {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	var packDirs, grantFiles []string
	for name, files := range f.packs {
		packDir := filepath.Join("packs", name)
		writeFile(t, filepath.Join(packDir, "manifest.json"), files[0])
		writeFile(t, filepath.Join(packDir, "policy.json"), files[1])
		packDirs = append(packDirs, packDir)
	}
	for _, g := range f.grants {
		path := filepath.Join("grants", g[0])
		writeFile(t, path, g[1])
		grantFiles = append(grantFiles, path)
	}
	s := compile.Load(packDirs, grantFiles)
	if err := s.Err(); err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	return s
}

// evaluator loads the fixture and indexes it.
func (f fixture) evaluator(t testing.TB) *Evaluator {
	t.Helper()
	s := f.sources(t)
	return New(s.Packs(), s.Grants())
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// decode reads JSON text as the runtime's input arrives: numbers kept as
// json.Number.
func decode(t testing.TB, text string) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(text)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", text, err)
	}
	return v
}

// canonical is JSON text re-encoded by encoding/json: compact, keys sorted.
func canonical(t testing.TB, v any) string {
	t.Helper()
	text, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %v: %v", v, err)
	}
	return string(text)
}

// assertJSON fails unless got marshals to the same document as want.
func assertJSON(t testing.TB, got any, want string) {
	t.Helper()
	if g, w := canonical(t, got), canonical(t, decode(t, want)); g != w {
		t.Errorf("got  %s\nwant %s", g, w)
	}
}

// decideCode decides input text and returns the decision's code.
func decideCode(t testing.TB, e *Evaluator, input string, ext Ext) string {
	t.Helper()
	code, _ := e.Decide(decode(t, input), ext)["code"].(string)
	return code
}
