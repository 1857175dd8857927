package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// An output (-o) must never replace an input, nor write into an input
// pack folder (issue 15; docs/reliability.md, "An output never replaces an
// input"): each command that writes -o refuses such an output with exit 2,
// names the output and the input, and writes nothing.

// outputCommand is a command line that writes -o: "PACK" stands for the
// pack folder argument, "OUT" for the output, "@PATH" for PATH in the
// fixture's folder.
type outputCommand struct {
	name string
	args []string
	// keyOnly is true for a command whose one input in the fixture is the
	// key (pull: the bundle comes from a registry, never reached here).
	keyOnly bool
}

var outputCommands = []outputCommand{
	{"compile", []string{"compile", "PACK", "--grants", "@grants.json", "-o", "OUT"}, false},
	{"build", []string{"build", "PACK", "--grants", "@grants.json", "--signing-key", "@key.pem", "-o", "OUT"}, false},
	{"export", []string{"export", "--harness", "claude-code", "--subject", "role:member", "-o", "OUT", "PACK", "--grants", "@grants.json"}, false},
	{"pull", []string{"pull", "127.0.0.1:1/hcp:r1", "--plain-http", "--verification-key", "@key.pem", "-o", "OUT"}, true},
}

// outputClash is an -o that meets an input.
type outputClash struct {
	name   string
	setup  func(t *testing.T, dir string) // links and folders to make first
	output string                         // relative to the fixture, as typed
	pack   string                         // the PACK_DIR argument; "pack" when empty
	want   string                         // the message after "write OUTPUT: "; "@" is the fixture's folder
	only   string                         // the commands it concerns, space-separated; every one but keyOnly's when empty
}

// concerns reports whether the clash applies to the command c.
func (clash outputClash) concerns(c outputCommand) bool {
	if clash.only == "" {
		return !c.keyOnly
	}
	return slices.Contains(strings.Fields(clash.only), c.name)
}

var outputClashes = []outputClash{
	{name: "the grant file", output: "grants.json", want: "is the input @grants.json"},
	{name: "the manifest", output: "pack/manifest.json", want: "is the input @pack/manifest.json"},
	{name: "the policy", output: "pack/policy.json", want: "is the input @pack/policy.json"},
	{name: "the pack folder", output: "pack", want: "is the input @pack"},
	{name: "the signing key", output: "key.pem", want: "is the input @key.pem", only: "build pull"},
	{name: "a new name in the pack folder", output: "pack/new", want: "lies inside the input folder @pack"},
	{name: "a new name deep in the pack folder", setup: mkdirs("pack/a/b"), output: "pack/a/b/new", want: "lies inside the input folder @pack"},
	{name: "dot-dot into the pack folder", setup: mkdirs("elsewhere"), output: "elsewhere/../pack/new", want: "lies inside the input folder @pack"},
	{name: "a hard link to the grant file", setup: hardLink("grants.json", "copy.json"), output: "copy.json", want: "is the input @grants.json"},
	{name: "a hard link to the policy", setup: hardLink("pack/policy.json", "copy.json"), output: "copy.json", want: "is the input @pack/policy.json"},
	{name: "a hard link to the signing key", setup: hardLink("key.pem", "copy.pem"), output: "copy.pem", want: "is the input @key.pem", only: "build pull"},
	{name: "a symbolic link to the grant file", setup: symlink("grants.json", "link.json"), output: "link.json", want: "is the input @grants.json"},
	{name: "a symbolic link to the manifest", setup: symlink("pack/manifest.json", "link.json"), output: "link.json", want: "is the input @pack/manifest.json"},
	{name: "a symbolic link to the pack folder", setup: symlink("pack", "link"), output: "link", want: "is the input @pack"},
	{name: "a new name through a linked folder", setup: symlink("pack", "link"), output: "link/new", want: "lies inside the input folder @pack"},
	{name: "dot-dot after a linked folder", setup: both(mkdirs("pack/a"), symlink("pack/a", "link")), output: "link/../new", want: "lies inside the input folder @pack"},
	{name: "a link to nothing in the pack folder", setup: symlink("pack/new", "link"), output: "link", want: "lies inside the input folder @pack"},
	{name: "a folder of compile's that holds the pack", setup: earlierOutputHolding("out", "pack"), output: "out", pack: "out/pack", want: "holds the input @out/pack"},
}

// TestOutputOverInput runs each command that writes -o with each output
// that meets an input: exit 2, the message naming the output and the
// input, nothing on stdout, and every file byte-identical.
func TestOutputOverInput(t *testing.T) {
	for _, c := range outputCommands {
		for _, clash := range outputClashes {
			if !clash.concerns(c) {
				continue
			}
			t.Run(c.name+"/"+clash.name, func(t *testing.T) { checkOutputClash(t, c, clash) })
		}
	}
}

func checkOutputClash(t *testing.T, c outputCommand, clash outputClash) {
	dir := outputFixture(t)
	if clash.setup != nil {
		clash.setup(t, dir)
	}
	before := snapshot(t, dir)
	pack := clash.pack
	if pack == "" {
		pack = "pack"
	}
	// Paths are joined as text, not cleaned: "link/../new" is not "new".
	at := func(rel string) string { return dir + string(filepath.Separator) + rel }
	args := slices.Clone(c.args)
	for i, a := range args {
		switch {
		case a == "PACK":
			args[i] = at(pack)
		case a == "OUT":
			args[i] = at(clash.output)
		case strings.HasPrefix(a, "@"):
			args[i] = at(a[1:])
		}
	}
	o := runInProcess(t, 0, args...)
	want := "write " + at(clash.output) + ": " + strings.ReplaceAll(clash.want, "@", dir+string(filepath.Separator)) + "\n"
	if o.code != exitBadInput || o.stderr != want || o.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", o.code, o.stdout, o.stderr, want)
	}
	if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("files changed:\nbefore %v\nafter  %v", before, after)
	}
}

// outputFixture is the hostile tests' good files and a signing key.
func outputFixture(t *testing.T) string {
	t.Helper()
	dir, _ := fixture(t, nil)
	key, err := os.ReadFile("../../testdata/keys/rsa.key")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "key.pem"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mkdirs(rel string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if err := os.MkdirAll(filepath.Join(dir, rel), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func hardLink(target, name string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if err := os.Link(filepath.Join(dir, target), filepath.Join(dir, name)); err != nil {
			t.Skip("no hard links here:", err)
		}
	}
}

// symlink makes a relative link, so that it resolves from its own folder.
func symlink(target, name string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		rel, err := filepath.Rel(filepath.Dir(filepath.Join(dir, name)), filepath.Join(dir, target))
		if err == nil {
			err = os.Symlink(rel, filepath.Join(dir, name))
		}
		if err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
}

func both(a, b func(*testing.T, string)) func(*testing.T, string) {
	return func(t *testing.T, dir string) { a(t, dir); b(t, dir) }
}

// earlierOutputHolding makes folder out an earlier output of compile (a
// .manifest of hcp's, which compile replaces whole) and moves the pack
// into it: compile -o out would remove the pack with the old output.
func earlierOutputHolding(out, pack string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		mkdirs(out)(t, dir)
		if err := os.WriteFile(filepath.Join(dir, out, ".manifest"), []byte(`{"revision": "old", "metadata": {"hcp": {}}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, pack), filepath.Join(dir, out, pack)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOutputOverInputInTheBinary runs the reproductions of issue 15 as
// typed, in their own process: each used to exit 0 and replace the input.
func TestOutputOverInputInTheBinary(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"build", "packs", "--grants", "g.json", "-o", "g.json"}, "write g.json: is the input g.json\n"},
		{[]string{"build", "packs", "--grants", "g.json", "-o", "packs/ledger/policy.json"}, "write packs/ledger/policy.json: is the input packs/ledger/policy.json\n"},
		{[]string{"export", "--harness", "cursor", "--subject", "role:member", "packs", "--grants", "g.json", "-o", "packs/mail/manifest.json"}, "write packs/mail/manifest.json: is the input packs/mail/manifest.json\n"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.CopyFS(filepath.Join(dir, "packs"), os.DirFS("../../testdata/packs")); err != nil {
				t.Fatal(err)
			}
			grants, err := os.ReadFile("../../testdata/grants/acme.json")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "g.json"), grants, 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			o := runBinary(t, dir, "", c.args...)
			if o.code != exitBadInput || o.stderr != c.want || o.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", o.code, o.stdout, o.stderr, c.want)
			}
			if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
				t.Errorf("files changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// outputWithoutInputs are the commands whose -o no input can meet, and
// why.
var outputWithoutInputs = map[string]string{
	"hcp-rego init pack": "reads no input; -o is the folder it writes under, and it refuses any file there already (init_pack.txtar)",
}

// TestEveryOutputCommandChecked holds outputCommands to the commands that
// have -o, so that a new one is not left out of TestOutputOverInput.
func TestEveryOutputCommandChecked(t *testing.T) {
	var have []string
	var visit func(*cobra.Command)
	visit = func(cmd *cobra.Command) {
		if _, ok := outputWithoutInputs[cmd.CommandPath()]; ok {
			return
		}
		if cmd.Flags().ShorthandLookup("o") != nil || cmd.Flags().Lookup("output") != nil {
			have = append(have, cmd.Name())
		}
		for _, sub := range cmd.Commands() {
			visit(sub)
		}
	}
	visit(newRootCommand(streams{}))
	var tested []string
	for _, c := range outputCommands {
		tested = append(tested, c.name)
	}
	slices.Sort(have)
	slices.Sort(tested)
	if !slices.Equal(have, tested) {
		t.Errorf("commands with -o: %v; TestOutputOverInput runs %v", have, tested)
	}
}
