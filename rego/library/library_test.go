package library_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/hcp-rego/hcp-rego/rego/library"
)

// entryPoints are the rules a sidecar's caller may query.
var entryPoints = []string{"allow", "decision", "gpars_error", "permissions"}

// TestEntryPointsAnnotated holds the library to what an auditor and OPA's
// tools read (opa inspect -a, opa build -e): every entry point carries
// entrypoint: true in its METADATA, nothing else does, and every other
// rule starts with "_".
func TestEntryPointsAnnotated(t *testing.T) {
	var annotated, public []string
	for _, m := range library.Modules() {
		mod, err := ast.ParseModuleWithOpts(m.Path, string(m.Source), ast.ParserOptions{ProcessAnnotation: true, RegoVersion: ast.RegoV1})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range mod.Annotations {
			if a.Entrypoint {
				annotated = append(annotated, a.GetTargetPath()[len(a.GetTargetPath())-1].Value.(ast.String).String())
			}
		}
		for _, r := range mod.Rules {
			if name := r.Head.Name.String(); !strings.HasPrefix(name, "_") {
				public = append(public, name)
			}
		}
	}
	slices.Sort(annotated)
	public = slices.Compact(slices.Sorted(slices.Values(public)))
	for i := range annotated {
		annotated[i] = strings.Trim(annotated[i], `"`)
	}
	if !slices.Equal(annotated, entryPoints) {
		t.Errorf("entrypoint: true on %q, want %q", annotated, entryPoints)
	}
	if !slices.Equal(public, entryPoints) {
		t.Errorf("rules not starting with _: %q, want only the entry points %q", public, entryPoints)
	}
}

// TestCommentsStandAlone holds the library's comments to what ships with
// the bundle: they may name a docs page, never the contract document
// outside the repository (nor its section signs) nor a Go file or name
// that the bundle does not carry.
func TestCommentsStandAlone(t *testing.T) {
	outside := regexp.MustCompile(`SPEC|§|\b\w+\.go\b|\bcompile\.[A-Z]`)
	for _, m := range library.Modules() {
		for i, line := range strings.Split(string(m.Source), "\n") {
			if c := strings.Index(line, "#"); c >= 0 && outside.MatchString(line[c:]) {
				t.Errorf("%s:%d: a comment cites what the bundle does not carry: %s", m.Path, i+1, strings.TrimSpace(line))
			}
		}
	}
}
