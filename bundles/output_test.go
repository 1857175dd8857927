package bundles_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// TestCheckOutput holds the cases of CheckOutput that the commands'
// tests (cmd/hcp-rego/output_hostile_test.go) do not reach: outputs that
// only look close to an input, link chains and loops, missing inputs, and
// which input is named when an output meets several.
func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	treetest.Write(t, dir, map[string]string{"pack/policy.json": "{}", "pack/manifest.json": "{}", "g.json": "{}", "pack-old/.keep": ""})
	at := func(rel string) string { return filepath.Join(dir, rel) }
	for _, link := range [][2]string{{"pack/new", "to-new"}, {"to-new", "to-to-new"}, {"loop", "loop"}, {"nowhere/x", "to-nowhere"}} {
		if err := os.Symlink(link[0], at(link[1])); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	inputs := []string{at("pack"), at("pack/policy.json"), at("pack/manifest.json"), at("g.json"), "", at("missing.json")}
	tests := []struct {
		name, output, want string // want: the message after "write OUTPUT: ", "" for none
	}{
		{"standard output", "", ""},
		{"beside the inputs", "out.tar.gz", ""},
		{"a folder whose name starts as the pack's", "pack-old/out.tar.gz", ""},
		{"a folder whose name starts as the grant file's", "g.json.d/out", ""},
		{"the policy, named before its folder", "pack/policy.json", "is the input " + at("pack/policy.json")},
		{"a chain of links to nothing in the pack", "to-to-new", "lies inside the input folder " + at("pack")},
		{"a link loop, left to the writer", "loop", ""},
		{"a link to a missing folder", "to-nowhere", ""},
		{"the folder that holds every input", ".", "holds the input " + at("pack")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			output := tt.output
			if output != "" {
				output = at(output)
			}
			err := bundles.CheckOutput(output, inputs)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || err.Error() != "write "+output+": "+tt.want):
				t.Errorf("got %v, want write %s: %s", err, output, tt.want)
			}
		})
	}
}
