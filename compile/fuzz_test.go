package compile_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// The loaders' fuzz targets. Each writes the fuzzed file (and a partner
// that fits it) to a temporary folder and loads it as hcp-rego does. No
// input may panic; every error must be a source error naming one of the
// files, at a position inside it or at none; a model that loads must hold
// the invariants below; and a model that also lints clean must generate
// modules formatted as format.Source formats them (format_test.go) and
// compile to a bundle whose decisions the Go reference agrees with
// (fuzz_decide_test.go).

// addSeeds adds every file matching the patterns, and the small hostile
// files every loader must refuse, to the corpus.
func addSeeds(f *testing.F, patterns ...string) {
	for _, pattern := range patterns {
		paths, _ := filepath.Glob(pattern)
		if len(paths) == 0 {
			f.Fatalf("no seed matches %s", pattern)
		}
		for _, path := range paths {
			data, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	for _, hostile := range []string{"", "[]", "null", `{"id": NaN}`, `{"version": Infinity}`, "{\"id\": \"\xc3\x28\"}",
		`{"id": "x", "id": "y"}`, strings.Repeat("[", 300), `{"version": 2}`, `{"verbs": {"a": {"confirm": "sometimes"}}}`} {
		f.Add([]byte(hostile))
	}
}

// FuzzPolicy loads a fuzzed policy.json beside a manifest that declares
// exactly its verbs and stimuli, so that many inputs lint clean.
func FuzzPolicy(f *testing.F) {
	addSeeds(f, "../testdata/packs/*/policy.json", "../testdata/seed004/*/policy.json")
	f.Add([]byte(`{"surface_id": "x", "verbs": {"a \"b\"\n": {"operation": "write", "privacy": {"land": "local"}, "confirm": "always"}, "z.connect": {"operation": "write", "privacy": {"land": "brain"}}}, "stimuli": {"{s}": {"operation": "read", "privacy": {"land": "personal"}}}}`))
	f.Fuzz(func(t *testing.T, policy []byte) {
		checkPack(t, manifestFor(policy), policy)
	})
}

// FuzzManifest loads a fuzzed manifest.json beside a policy that has a
// row, lint clean, for each of its commands and triggers.
func FuzzManifest(f *testing.F) {
	addSeeds(f, "../testdata/packs/*/manifest.json", "../testdata/seed004/*/manifest.json")
	f.Add([]byte(`{"id": "p_1-x", "commands": {"a.b": {"cli": ["p", "{x}", "--to", "{y}", "{", "{}", "{{z}}", "a b", "'", "--confirm"]}, "connect": {}}, "stimulusTriggers": ["t", {"ref": "u v"}]}`))
	f.Fuzz(func(t *testing.T, manifest []byte) {
		checkPack(t, manifest, policyFor(manifest))
	})
}

// FuzzGrants loads a fuzzed grant file beside the example packs.
func FuzzGrants(f *testing.F) {
	addSeeds(f, "../testdata/grants/*.json", "../testdata/seed004/grants.json")
	f.Add([]byte(`{"grants": [{"subject": "role:a\"b", "tenant": "", "pack_id": "mail", "verb_key": "mail.send", "capabilities": ["verb.exec.write", "verb.exec.write"]}]}`))
	f.Fuzz(func(t *testing.T, grants []byte) {
		dir := t.TempDir()
		path := filepath.ToSlash(filepath.Join(dir, "grants.json"))
		write(t, path, grants)
		packs := []string{"../testdata/packs/ledger", "../testdata/packs/mail", "../testdata/packs/workspace", "../testdata/seed004/hub"}
		s := compile.Load(packs, []string{path})
		if err := s.Err(); err != nil {
			checkErrors(t, err, map[string][]byte{path: grants})
			return
		}
		checkGrants(t, s.Grants(), path, grants)
		m, err := s.Check()
		if err != nil {
			checkErrors(t, err, map[string][]byte{path: grants})
			return
		}
		agree(t, m)
	})
}

// checkPack loads one pack from the two files and checks what it gives.
func checkPack(t *testing.T, manifest, policy []byte) {
	dir := t.TempDir()
	files := map[string][]byte{
		filepath.ToSlash(filepath.Join(dir, "manifest.json")): manifest,
		filepath.ToSlash(filepath.Join(dir, "policy.json")):   policy,
	}
	for path, data := range files {
		write(t, path, data)
	}
	s := compile.Load([]string{dir}, nil)
	if err := s.Err(); err != nil {
		checkErrors(t, err, files)
		return
	}
	p := s.Packs()[0]
	checkRows(t, p, files)
	if err := s.Lint(); err != nil {
		checkErrors(t, err, files)
		return
	}
	grants := filepath.Join(dir, "grants.json")
	write(t, grants, mustJSON(t, map[string]any{"grants": []any{map[string]any{
		"subject": "default", "pack_id": p.ID,
		"capabilities": []string{compile.CapRead, compile.CapWrite, compile.CapConnect, compile.CapSense},
	}}}))
	m, err := compile.Checked([]string{dir}, []string{grants})
	if err != nil {
		t.Fatalf("a pack that lints clean fails with a default grant on it: %v", err)
	}

	agree(t, m)
}

// checkErrors holds every problem to be a source error in one of files, at
// a position inside it (line and column in range) or at none.
func checkErrors(t *testing.T, err error, files map[string][]byte) {
	t.Helper()
	var list problem.Errors
	var one *problem.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = problem.Errors{one}
	default:
		t.Fatalf("error of type %T, not a source error: %v", err, err)
	}
	if len(list) == 0 {
		t.Fatal("an empty error list")
	}
	for _, e := range list {
		data, ok := files[e.File]
		if !ok {
			t.Fatalf("error names %q, not one of the files: %v", e.File, e)
		}
		if e.Pos == (problem.Pos{}) {
			continue
		}
		lines := treetest.Lines(string(data))
		if e.Pos.Line < 1 || e.Pos.Line > len(lines) || e.Pos.Col < 1 || e.Pos.Col > utf8.RuneCountInString(lines[e.Pos.Line-1])+1 {
			t.Fatalf("error at %d:%d, outside the file: %v", e.Pos.Line, e.Pos.Col, e)
		}
		if e.Msg == "" {
			t.Fatalf("error without a message at %s", e.File)
		}
	}
}

var packID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// checkRows holds a loaded pack to what the schemas promise.
func checkRows(t *testing.T, p *compile.Pack, files map[string][]byte) {
	t.Helper()
	if !packID.MatchString(p.ID) {
		t.Fatalf("pack id %q", p.ID)
	}
	policyLines := len(treetest.Lines(string(files[p.PolicyFile])))
	for path, data := range files {
		sum := sha256.Sum256(data)
		if p.Digests[path] != hex.EncodeToString(sum[:]) {
			t.Fatalf("digest of %s is %q", path, p.Digests[path])
		}
	}
	for _, k := range []compile.Kind{compile.Verb, compile.Stimulus} {
		for key, r := range p.Rows(k) {
			switch {
			case r.Key != key || r.Kind != k || r.Pack != p.ID || r.File != p.PolicyFile:
				t.Fatalf("row %q filed under %q: %+v", r.Key, key, r)
			case key == "":
				t.Fatal("a row with an empty key")
			case r.Operation != "read" && r.Operation != "write":
				t.Fatalf("row %q: operation %q", key, r.Operation)
			case !slices.Contains([]string{"personal", "brain", "local"}, r.Land):
				t.Fatalf("row %q: land %q", key, r.Land)
			case r.Gate > compile.GateAlways:
				t.Fatalf("row %q: gate %d", key, r.Gate)
			case r.Line < 1 || r.Line > policyLines:
				t.Fatalf("row %q: line %d of %d", key, r.Line, policyLines)
			case k == compile.Stimulus && (r.Connect || r.CLI != nil):
				t.Fatalf("trigger %q with a command's facts", key)
			}
		}
	}
}

var subject = regexp.MustCompile(`^(principal:.+|role:.+|default)$`)

// checkGrants holds loaded grants to what the schema promises.
func checkGrants(t *testing.T, grants []*compile.Grant, path string, data []byte) {
	t.Helper()
	lines := len(treetest.Lines(string(data)))
	caps := []string{compile.CapRead, compile.CapWrite, compile.CapConnect, compile.CapSense}
	for i, g := range grants {
		switch {
		case g.File != path || g.N != i+1 || g.Index != i:
			t.Fatalf("grant %d: file %s, N %d, index %d", i, g.File, g.N, g.Index)
		case g.Line < 1 || g.Line > lines:
			t.Fatalf("grant %d: line %d of %d", g.N, g.Line, lines)
		case !subject.MatchString(g.Subject) || g.PackID == "":
			t.Fatalf("grant %d: subject %q, pack %q", g.N, g.Subject, g.PackID)
		case g.VerbKey != "" && g.Stimulus != "":
			t.Fatalf("grant %d: both verb_key and stimulus", g.N)
		case len(g.Capabilities) == 0 || slices.ContainsFunc(g.Capabilities, func(c string) bool { return !slices.Contains(caps, c) }):
			t.Fatalf("grant %d: capabilities %q", g.N, g.Capabilities)
		}
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
