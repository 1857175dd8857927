package compile_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
)

// checkFormatted holds every pack module of m to the bytes format.Source
// gives for it: PackModule writes them formatted and a build does not
// format them again (which also proves that each parses as Rego v1).
func checkFormatted(t *testing.T, m *compile.Model) {
	t.Helper()
	for _, p := range m.Packs() {
		mod, err := compile.PackModule(p)
		if err != nil {
			t.Fatal(err)
		}
		formatted, err := format.SourceWithOpts(mod.Path, mod.Source, format.Opts{RegoVersion: ast.RegoV1})
		if err != nil {
			t.Fatalf("%s does not parse: %v\n%s", mod.Path, err, mod.Source)
		}
		if !bytes.Equal(formatted, mod.Source) {
			t.Fatalf("%s is not formatted as opa fmt formats it:\n%s", mod.Path, lineDiff(mod.Source, formatted))
		}
	}
}

// TestPackModulesFormattedEdges holds generated modules to format.Source's
// bytes where the formatter could write them otherwise: pack ids that are
// keywords or not names (bracketed in the package path), no commands or
// triggers (empty objects), keys and cli tokens with quotes, escapes,
// unicode and line separators, and templates that stand in cli.
func TestPackModulesFormattedEdges(t *testing.T) {
	ids := []string{"ledger", "import", "if", "contains", "every", "in", "not", "some", "else", "default",
		"package", "true", "null", "input", "data", "future", "rego", "0pack", "a-b", "a_b", "a1", "z"}
	keys := []string{"a.b", "a \"b\"\n", "\\", "tab\there", "é ü 世界", "\u2028\u2029", "\ufeff", "\x7f", "{x}", "<>&", "`raw`", "#", "import", "if"}
	for _, id := range ids {
		for _, variant := range []string{"rows", "empty", "verbs only", "stimuli only"} {
			t.Run(id+" "+variant, func(t *testing.T) {
				dir := t.TempDir()
				commands, verbs, triggers, stimuli := map[string]any{}, map[string]any{}, []any{}, map[string]any{}
				row := func(i int, ops ...string) map[string]any {
					r := map[string]any{"operation": ops[i%len(ops)], "privacy": map[string]any{"land": []string{"personal", "brain", "local"}[i%3]}}
					if r["operation"] == "write" {
						r["confirm"] = []any{true, false, "always"}[i%3]
					}
					return r
				}
				if variant == "rows" || variant == "verbs only" {
					for i, k := range keys {
						cli := []string{id, k, fmt.Sprintf("{arg%d}", i), "--to", "{y}", "--confirm"}
						if i%2 == 0 {
							cli = append(cli, "a b", "{", "")
						}
						commands[k] = map[string]any{"cli": cli}
						verbs[k] = row(i, "read", "write")
					}
				}
				if variant == "rows" || variant == "stimuli only" {
					for i, k := range keys {
						triggers = append(triggers, k)
						stimuli[k] = row(i+1, "read")
					}
				}
				write(t, filepath.Join(dir, "manifest.json"), mustJSON(t, map[string]any{"id": id, "commands": commands, "stimulusTriggers": triggers}))
				write(t, filepath.Join(dir, "policy.json"), mustJSON(t, map[string]any{"surface_id": id, "verbs": verbs, "stimuli": stimuli}))
				m, err := compile.Load([]string{dir}, nil).Check()
				if err != nil {
					if strings.Contains(err.Error(), "is not a pack id") {
						t.Skip(err)
					}
					t.Fatal(err)
				}
				checkFormatted(t, m)
				// The package line is the one format.Source makes of the
				// bracketed path that generation wrote before it wrote
				// formatted text: the bundle's bytes are the same.
				was, err := format.SourceWithOpts("p.rego", []byte("package hcp.packs["+strconv.Quote(id)+"]\n"), format.Opts{RegoVersion: ast.RegoV1})
				if err != nil {
					t.Fatal(err)
				}
				if mod, _ := compile.PackModule(m.Packs()[0]); !bytes.Contains(mod.Source, append([]byte("\n"), was...)) {
					t.Errorf("package line of %q differs from the formatted %s", id, was)
				}
			})
		}
	}
}

// TestLargeSetFormatted holds the modules of a generated set, as the
// benchmarks build it, to format.Source's bytes.
func TestLargeSetFormatted(t *testing.T) {
	set, err := largeset.Write(t.TempDir(), largeset.Spec{Packs: 40, Verbs: 50, Triggers: 2, Grants: 100, GrantFiles: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	m, err := compile.Checked(set.PackDirs, set.GrantFiles)
	if err != nil {
		t.Fatal(err)
	}
	checkFormatted(t, m)
}
