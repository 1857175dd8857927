package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/internal/compare"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

type compareOptions struct {
	dirs    []string
	ext     []string
	failOn  string
	format  string
	sources sourceLimit
}

func newCompareCommand(s streams) *cobra.Command {
	var o compareOptions
	cmd := &cobra.Command{
		Use:   "compare OLD_DIR NEW_DIR [--ext PATH]... [--fail-on wider|change] [--format pretty|markdown|json]",
		Short: "Prove what a change grants: every call any principal could make, decided by both versions",
		Long: `Compare finds the packs and grant files under OLD_DIR and NEW_DIR (as test
does) and decides, for every command and trigger of either version, every
call that any principal could make: any id, tenant, set of roles and
projects; every land fact holding, failing or missing; the pack reachable
or not; mode ask or run; confirm or apply given or not; an allow rule that
matches or none. The decision reads names only by equality with the names
the grants and rows hold, so these calls fall into finitely many classes,
and compare decides each (docs/compare.md): nothing is sampled.

Each key gets a verdict, by disposition (deny < ask < allow): same;
narrower (no call more permissive under NEW, some less); wider (some more
permissive, none less); mixed (both); added or removed (in one version
only). A wider or mixed key, and an added key that someone may call, comes
with an example: a complete decision input that NEW decides more
permissively than OLD, with both decisions (code, row, grant), which
hcp-rego eval on each version reproduces; a narrower or removed one with
an example the other way.

--ext loads a runtime's hcp.ext rules on both sides: its rules can only
take differences away, so the verdicts hold with them, and each example is
one they let through where compare finds one. --format pretty (default)
is a table of every key not same and a last line of counts; markdown is
the same for a pull request comment, with each example's input; json is
one object. --fail-on wider exits 1 when a key is wider or mixed or an
added key someone may call; --fail-on change when any key is not same.`,
		Example: `  git worktree add ../base origin/main && hcp-rego compare ../base . --fail-on wider
  hcp-rego compare ../base . --format markdown > compare.md`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.dirs = args
			return runCompare(cmd.Context(), s, o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.ext, "ext", nil, "load a runtime's hcp.ext rules on both sides: a .rego file or a folder of them (repeatable)")
	f.StringVar(&o.failOn, "fail-on", "", "exit 1 when a key is wider (wider) or when any key changed (change)")
	f.StringVar(&o.format, "format", "pretty", "output format: pretty, markdown or json")
	addSourceLimitFlag(f, &o.sources)
	return cmd
}

// check checks the arguments and flags.
func (o compareOptions) check() error {
	switch {
	case len(o.dirs) != 2:
		return errors.New("compare takes two folders: OLD_DIR NEW_DIR")
	case o.format != "pretty" && o.format != "markdown" && o.format != "json":
		return fmt.Errorf("--format %q: want pretty, markdown or json", o.format)
	case o.failOn != "" && o.failOn != "wider" && o.failOn != "change":
		return fmt.Errorf("--fail-on %q: want wider or change", o.failOn)
	}
	return nil
}

func runCompare(ctx context.Context, s streams, o compareOptions) error {
	if err := o.check(); err != nil {
		return badInput(err)
	}
	// Both versions' problems and the runtime rules', sorted together.
	var errs problem.Errors
	before, err := loadTree(o.dirs[0], o.sources.limits())
	errs.Merge("", err)
	after, err := loadTree(o.dirs[1], o.sources.limits())
	errs.Merge("", err)
	ext, err := hcprego.ReadExt(o.ext, nil)
	errs.Merge("", err)
	var layer *hcprego.Layer
	if err == nil && len(ext) > 0 {
		layer, err = hcprego.NewLayer(ctx, ext)
		errs.Merge("", err)
	}
	if err := errs.Err(); err != nil {
		return badInput(err)
	}
	opts := compare.Options{}
	if layer != nil {
		opts.Layer = layer
	}
	r, err := compare.Compare(ctx, before, after, opts)
	if err != nil {
		return badInput(err)
	}
	if err := writeComparison(s.out, o.format, r); err != nil {
		return err
	}
	return o.gate(r)
}

// writeComparison writes the report in format.
func writeComparison(w io.Writer, format string, r *compare.Report) error {
	switch format {
	case "json":
		return compare.WriteJSON(w, r)
	case "markdown":
		return compare.WriteMarkdown(w, r)
	}
	return compare.WritePretty(w, r)
}

// gate is the exit of --fail-on.
func (o compareOptions) gate(r *compare.Report) error {
	switch {
	case o.failOn == "wider" && r.Widens():
		return findings()
	case o.failOn == "change" && len(r.Findings) > 0:
		return findings()
	}
	return nil
}
